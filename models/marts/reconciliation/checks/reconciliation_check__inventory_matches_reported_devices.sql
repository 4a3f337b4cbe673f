{#- Inventory matches reported devices per period: every GPU the telemetry reported during
    the period is in the approved inventory, on the node it was reported on. -#}
with

periods as (
    select * from {{ ref('int_periods') }}
),

inventory_findings as (
    select * from {{ ref('fact_inventory_reconciliation') }}
    where finding in ('not_in_inventory', 'node_mismatch')
),

findings as (
    select
        periods.period,
        inventory_findings.gpu_uuid,
        1 as observed_value,
        inventory_findings.gpu_uuid || ' (' || inventory_findings.finding || ', reported on '
        || inventory_findings.reported_node_name || ')' as finding
    from inventory_findings
    inner join periods
        on
            inventory_findings.first_reported_at < periods.period_end_at
            and inventory_findings.last_reported_at >= periods.period_start_at
),

measured as (
    {{ gpuledger.reconciliation_measure(
        'findings', 'every reported GPU is in the approved inventory, on its node', order_by='gpu_uuid'
    ) }}
),

final as (
    {{ gpuledger.reconciliation_check(
        'inventory_matches_reported_devices', 'measured', gpuledger.reconciliation_status('none_found')
    ) }}
)

select * from final
