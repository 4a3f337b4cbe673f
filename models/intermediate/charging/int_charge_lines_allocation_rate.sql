{#- Charging model 1, allocation rate: allocated GPU-hours x the class's allocated_gpu_hour
    rate valid when each segment started (int_segments_priced). -#}
with

priced_segments as (
    select * from {{ ref('int_segments_priced') }}
    where charge_basis = 'allocated_gpu_hour'
),

settings as (
    select * from {{ ref('stg_policy__settings') }}
),

priced as (
    select
        priced_segments.period,
        priced_segments.tenant_id,
        priced_segments.gpu_class,
        priced_segments.confidence,
        priced_segments.priced_gpu_hours as gpu_hours,
        priced_segments.rate_card_version,
        priced_segments.unit_price,
        coalesce(priced_segments.currency, settings.currency) as currency
    from priced_segments
    cross join settings
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
        round({{ gpuledger.exact_sum('gpu_hours') }}, 6) as quantity
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
