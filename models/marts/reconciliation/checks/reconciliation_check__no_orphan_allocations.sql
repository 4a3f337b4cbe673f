{#- No orphan allocations per period: no GPU-hours on a node missing from the inventory. -#}
with

segments as (
    select * from {{ ref('int_allocation_segments') }}
),

findings as (
    select
        period,
        gpu_hours as observed_value,
        workload_id || ' on ' || coalesce(node_name, '?') as finding
    from segments
    where is_orphan
),

measured as (
    {{ gpuledger.reconciliation_measure('findings', 'none', order_by='finding', distinct=true) }}
),

final as (
    {{ gpuledger.reconciliation_check(
        'no_orphan_allocations', 'measured', gpuledger.reconciliation_status('within_tolerance')
    ) }}
)

select * from final
