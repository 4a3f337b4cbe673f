{#- Rate card coverage per period: every usage charge line (allocated, guaranteed, burst,
    shared endpoint and its hosting) has a unit price. -#}
with

charges as (
    select * from {{ ref('int_charge_lines') }}
),

findings as (
    select
        period,
        1 as observed_value,
        tenant_id || ' ' || charge_component || ' ' || gpu_class as finding
    from charges
    where
        unit_price is null
        and charge_component in (
            'allocated_gpu_hours', 'guaranteed_capacity', 'burst_usage', 'shared_endpoint',
            'shared_endpoint_hosting'
        )
),

measured as (
    {{ gpuledger.reconciliation_measure('findings', 'every usage line priced', order_by='finding') }}
),

final as (
    {{ gpuledger.reconciliation_check(
        'rate_card_coverage', 'measured', gpuledger.reconciliation_status('none_found')
    ) }}
)

select * from final
