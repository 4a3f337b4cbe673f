{#- One charge line per period, tenant, charge component, GPU class, rate card version and
    unit price (the grain charge_line_id hashes): returns every grain with more than one
    line, whichever charging model produced it. -#}
with

charge_lines as (
    select * from {{ ref('int_charge_lines') }}
),

final as (
    select
        period,
        tenant_id,
        charge_component,
        gpu_class,
        rate_card_version,
        unit_price,
        count(*) as line_count,
        count(distinct charge_line_id) as charge_line_id_count,
        sum(amount) as amount
    from charge_lines
    group by period, tenant_id, charge_component, gpu_class, rate_card_version, unit_price
    having count(*) > 1
)

select * from final
