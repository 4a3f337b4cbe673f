{#- The shared-endpoint lines recharge, never create, cost: per period, GPU class, rate card
    version and currency the 'shared_endpoint' lines add up to minus the
    'shared_endpoint_hosting' lines, to the cent. Returns the groups that do not net to 0. -#}
with

lines as (
    select * from {{ ref('int_endpoint_charge_lines') }}
),

final as (
    select
        period,
        gpu_class,
        rate_card_version,
        currency,
        sum(case when charge_component = 'shared_endpoint' then amount else 0 end)
            as recharged_amount,
        sum(case when charge_component = 'shared_endpoint_hosting' then amount else 0 end)
            as hosting_amount
    from lines
    group by period, gpu_class, rate_card_version, currency
    having sum(amount) != 0
)

select * from final
