{#- Rate card coverage per period: every usage charge line (vars.rate_card_components:
    allocated, guaranteed, burst, shared endpoint and its hosting) has a unit price. -#}
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
    where {{ gpuledger.is_unpriced('unit_price', 'charge_component') }}
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
