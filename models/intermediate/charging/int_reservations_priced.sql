{#- Reservations priced on the reserved_gpu_hour basis: each reservation's part of a period
    (int_reservation_periods) cut at the committed rate's validity, so a rate change
    mid-period prices each part at its own rate. A part no committed rate covers keeps its
    row, unpriced, so the close's rate_card_coverage check blocks it instead of the guarantee
    going unbilled. -#}
with

reservation_periods as (
    select * from {{ ref('int_reservation_periods') }}
),

rate_card as (
    select * from {{ ref('stg_policy__rate_card') }}
    where charge_basis = 'reserved_gpu_hour'
),

clipped as (
    select
        reservation_periods.period,
        reservation_periods.tenant_id,
        reservation_periods.gpu_class,
        reservation_periods.service_class,
        reservation_periods.reserved_gpus,
        reservation_periods.valid_from_at,
        reservation_periods.valid_to_at,
        greatest(
            reservation_periods.reserved_from_at,
            coalesce(rate_card.valid_from_at, reservation_periods.reserved_from_at)
        ) as priced_from_at,
        least(
            reservation_periods.reserved_to_at,
            coalesce({{ gpuledger.open_end('rate_card.valid_to_at') }}, reservation_periods.reserved_to_at)
        ) as priced_to_at,
        rate_card.rate_card_version,
        rate_card.unit_price,
        rate_card.currency
    from reservation_periods
    left join rate_card
        on
            reservation_periods.gpu_class = rate_card.gpu_class
            and reservation_periods.reserved_to_at > rate_card.valid_from_at
            and reservation_periods.reserved_from_at < {{ gpuledger.open_end('rate_card.valid_to_at') }}
),

final as (
    select
        *,
        reserved_gpus * {{ gpuledger.hours_between('priced_from_at', 'priced_to_at') }}
            as reserved_gpu_hours
    from clipped
)

select * from final
