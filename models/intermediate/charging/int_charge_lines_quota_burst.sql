{#- Charging model 3, quota + burst: the guaranteed capacity (reserved GPU-hours) at the
    committed reserved_gpu_hour rate whether used or not, plus borrowed GPU-hours at the
    borrowed_gpu_hour (burst) rate. Guaranteed use inside the reservation costs nothing more. -#}
with

reservation_periods as (
    select * from {{ ref('int_reservation_periods') }}
),

segments as (
    select * from {{ ref('int_allocation_segments') }}
),

rate_card as (
    select * from {{ ref('stg_policy__rate_card') }}
),

settings as (
    select * from {{ ref('stg_policy__settings') }}
),

reserved_rates as (
    select * from rate_card
    where charge_basis = 'reserved_gpu_hour'
),

reserved_priced as (
    {#- A reservation part no committed rate covers still becomes a line, unpriced, so the
        close's rate_card_coverage check blocks it instead of the guarantee going unbilled. -#}
    select
        reservation_periods.period,
        reservation_periods.tenant_id,
        reservation_periods.gpu_class,
        reserved_rates.rate_card_version,
        reserved_rates.unit_price,
        reserved_rates.currency,
        reservation_periods.reserved_gpus
        * {{ gpuledger.hours_between(
            'greatest(reservation_periods.reserved_from_at, '
            ~ 'coalesce(reserved_rates.valid_from_at, reservation_periods.reserved_from_at))',
            'least(reservation_periods.reserved_to_at, '
            ~ 'coalesce(' ~ gpuledger.open_end('reserved_rates.valid_to_at')
            ~ ', reservation_periods.reserved_to_at))'
        ) }} as reserved_gpu_hours
    from reservation_periods
    left join reserved_rates
        on
            reservation_periods.gpu_class = reserved_rates.gpu_class
            and reservation_periods.reserved_to_at > reserved_rates.valid_from_at
            and reservation_periods.reserved_from_at < {{ gpuledger.open_end('reserved_rates.valid_to_at') }}
),

guaranteed as (
    select
        period,
        tenant_id,
        'guaranteed_capacity' as charge_component,
        gpu_class,
        round(sum(reserved_gpu_hours), 6) as quantity,
        'reserved_gpu_hour' as unit,
        unit_price,
        currency,
        rate_card_version,
        'policy' as confidence,
        'reserved GPU-hours x committed rate, used or not' as description
    from reserved_priced
    group by period, tenant_id, gpu_class, unit_price, currency, rate_card_version
),

borrowed_priced as (
    select
        segments.period,
        segments.tenant_id,
        segments.gpu_class,
        segments.confidence,
        segments.borrowed_gpu_hours,
        rate_card.rate_card_version,
        rate_card.unit_price,
        rate_card.currency
    from segments
    left join rate_card
        on
            segments.gpu_class = rate_card.gpu_class
            and rate_card.charge_basis = 'borrowed_gpu_hour'
            and segments.segment_start_at >= rate_card.valid_from_at
            and segments.segment_start_at < {{ gpuledger.open_end('rate_card.valid_to_at') }}
    where segments.borrowed_gpu_hours > 0
),

burst as (
    select
        period,
        tenant_id,
        'burst_usage' as charge_component,
        gpu_class,
        round(sum(borrowed_gpu_hours), 6) as quantity,
        'borrowed_gpu_hour' as unit,
        unit_price,
        currency,
        rate_card_version,
        {{ gpuledger.weakest_confidence('confidence') }} as confidence,
        'borrowed GPU-hours (above the reservation) x burst rate' as description
    from borrowed_priced
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
