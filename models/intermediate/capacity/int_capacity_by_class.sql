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
    select
        periods.period,
        devices.gpu_class,
        devices.gpu_uuid,
        greatest(devices.in_service_from_at, periods.period_start_at) as from_at,
        least({{ gpuledger.open_end('devices.in_service_to_at') }}, periods.period_end_at) as to_at
    from devices
    inner join periods
        on
            devices.in_service_from_at < periods.period_end_at
            and {{ gpuledger.open_end('devices.in_service_to_at') }} > periods.period_start_at
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
