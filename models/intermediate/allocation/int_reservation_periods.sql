{#- Reserved GPU-hours: each reservation clipped to each period (and rate card version of its
    class, so a rate change mid-period prices each part at its own rate). -#}
with

reservations as (
    select * from {{ ref('stg_policy__reservations') }}
),

periods as (
    select * from {{ ref('int_periods') }}
),

clipped as (
    select
        periods.period,
        reservations.tenant_id,
        reservations.gpu_class,
        reservations.service_class,
        reservations.reserved_gpus,
        reservations.valid_from_at,
        reservations.valid_to_at,
        greatest(reservations.valid_from_at, periods.period_start_at) as reserved_from_at,
        least(
            {{ gpuledger.open_end('reservations.valid_to_at') }}, periods.period_end_at
        ) as reserved_to_at
    from reservations
    inner join periods
        on
            reservations.valid_from_at < periods.period_end_at
            and {{ gpuledger.open_end('reservations.valid_to_at') }} > periods.period_start_at
),

final as (
    select
        *,
        reserved_gpus * {{ gpuledger.hours_between('reserved_from_at', 'reserved_to_at') }}
            as reserved_gpu_hours
    from clipped
)

select * from final
