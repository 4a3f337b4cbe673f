{#- Charging model 3, quota + burst: the guaranteed capacity (reserved GPU-hours) at the
    committed reserved_gpu_hour rate whether used or not, plus borrowed GPU-hours at the
    borrowed_gpu_hour (burst) rate (int_reservations_priced, int_segments_priced). Guaranteed
    use inside the reservation costs nothing more. -#}
with

reservations_priced as (
    select * from {{ ref('int_reservations_priced') }}
),

priced_segments as (
    select * from {{ ref('int_segments_priced') }}
    where charge_basis = 'borrowed_gpu_hour'
),

settings as (
    select * from {{ ref('stg_policy__settings') }}
),

guaranteed as (
    select
        period,
        tenant_id,
        'guaranteed_capacity' as charge_component,
        gpu_class,
        round({{ gpuledger.exact_sum('reserved_gpu_hours') }}, 6) as quantity,
        'reserved_gpu_hour' as unit,
        unit_price,
        currency,
        rate_card_version,
        'policy' as confidence,
        'reserved GPU-hours x committed rate, used or not' as description
    from reservations_priced
    group by period, tenant_id, gpu_class, unit_price, currency, rate_card_version
),

burst as (
    select
        period,
        tenant_id,
        'burst_usage' as charge_component,
        gpu_class,
        round({{ gpuledger.exact_sum('priced_gpu_hours') }}, 6) as quantity,
        'borrowed_gpu_hour' as unit,
        unit_price,
        currency,
        rate_card_version,
        {{ gpuledger.weakest_confidence('confidence') }} as confidence,
        'borrowed GPU-hours (above the reservation) x burst rate' as description
    from priced_segments
    group by period, tenant_id, gpu_class, unit_price, currency, rate_card_version
),

unioned as (
    select * from guaranteed
    union all
    select * from burst
),

final as (
    select
        unioned.period,
        unioned.tenant_id,
        unioned.charge_component,
        unioned.gpu_class,
        unioned.quantity,
        unioned.unit,
        unioned.unit_price,
        cast(round(unioned.quantity * coalesce(unioned.unit_price, 0), 2) as decimal(18, 2))
            as amount,
        coalesce(unioned.currency, settings.currency) as currency,
        unioned.rate_card_version,
        unioned.confidence,
        unioned.description
    from unioned
    cross join settings
    where settings.charging_model = 'quota_burst'
)

select * from final
