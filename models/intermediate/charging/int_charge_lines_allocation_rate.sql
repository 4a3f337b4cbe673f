{#- Charging model 1, allocation rate: allocated GPU-hours x the class's allocated_gpu_hour
    rate valid when each segment started (segments are cut at rate card boundaries). -#}
with

segments as (
    select * from {{ ref('int_allocation_segments') }}
),

rate_card as (
    select * from {{ ref('stg_policy__rate_card') }}
    where charge_basis = 'allocated_gpu_hour'
),

settings as (
    select * from {{ ref('stg_policy__settings') }}
),

priced as (
    select
        segments.period,
        segments.tenant_id,
        segments.gpu_class,
        segments.confidence,
        segments.gpu_hours,
        rate_card.rate_card_version,
        rate_card.unit_price,
        coalesce(rate_card.currency, settings.currency) as currency
    from segments
    cross join settings
    left join rate_card
        on
            segments.gpu_class = rate_card.gpu_class
            and segments.segment_start_at >= rate_card.valid_from_at
            and segments.segment_start_at < {{ gpuledger.open_end('rate_card.valid_to_at') }}
    where settings.charging_model = 'allocation_rate'
),

grouped as (
    select
        period,
        tenant_id,
        gpu_class,
        rate_card_version,
        unit_price,
        currency,
        {{ gpuledger.weakest_confidence('confidence') }} as confidence,
        round(sum(gpu_hours), 6) as quantity
    from priced
    group by period, tenant_id, gpu_class, rate_card_version, unit_price, currency
),

final as (
    select
        period,
        tenant_id,
        'allocated_gpu_hours' as charge_component,
        gpu_class,
        quantity,
        'gpu_hour' as unit,
        unit_price,
        cast(round(quantity * coalesce(unit_price, 0), 2) as decimal(18, 2)) as amount,
        currency,
        rate_card_version,
        confidence,
        'allocated GPU-hours x allocated_gpu_hour rate' as description
    from grouped
)

select * from final
