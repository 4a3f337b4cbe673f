{#- Physical GPU-hours per GPU class and period: each inventory GPU's in-service interval
    clipped to the period. -#}
with

devices as (
    select * from {{ ref('int_devices_classified') }}
),

periods as (
    select * from {{ ref('int_periods') }}
),

clipped as (
    {{ gpuledger.clipped_to_periods(
        'devices', 'in_service_from_at', 'in_service_to_at', ['gpu_class', 'gpu_uuid']
    ) }}
),

final as (
    select
        period,
        gpu_class,
        count(distinct gpu_uuid) as device_count,
        {{ gpuledger.exact_sum(gpuledger.hours_between('from_at', 'to_at')) }} as physical_gpu_hours
    from clipped
    group by period, gpu_class
)

select * from final
