{#- Per GPU class, the timeline cut at every allocation, device service and reservation
    boundary and at every period start: in each interval the in-service GPUs, the allocated
    GPU-equivalents and the reserved GPUs are constant. Feeds the instant-level checks. -#}
with

segments as (
    select * from {{ ref('int_allocation_segments_split') }}
),

devices as (
    select * from {{ ref('int_devices_classified') }}
),

reservations as (
    select * from {{ ref('stg_policy__reservations') }}
),

periods as (
    select * from {{ ref('int_periods') }}
),

classes as (
    select distinct gpu_class from segments
    union
    select distinct gpu_class from devices
    union
    select distinct gpu_class from reservations
),

events as (
    select
        gpu_class,
        segment_start_at as event_at
    from segments
    union
    select
        gpu_class,
        segment_end_at as event_at
    from segments
    union
    select
        gpu_class,
        in_service_from_at as event_at
    from devices
    union
    select
        gpu_class,
        in_service_to_at as event_at
    from devices
    where in_service_to_at is not null
    union
    select
        gpu_class,
        valid_from_at as event_at
    from reservations
    union
    select
        gpu_class,
        valid_to_at as event_at
    from reservations
    where valid_to_at is not null
    union
    select
        classes.gpu_class,
        periods.period_start_at as event_at
    from classes
    cross join periods
    union
    select
        classes.gpu_class,
        periods.period_end_at as event_at
    from classes
    cross join periods
),

elementary as (
    select
        gpu_class,
        event_at as interval_start_at,
        lead(event_at) over (partition by gpu_class order by event_at) as interval_end_at
    from events
),

in_periods as (
    select
        elementary.gpu_class,
        elementary.interval_start_at,
        elementary.interval_end_at,
        periods.period
    from elementary
    inner join periods
        on
            elementary.interval_start_at >= periods.period_start_at
            and elementary.interval_start_at < periods.period_end_at
    where elementary.interval_end_at is not null
),

with_devices as (
    select
        in_periods.gpu_class,
        in_periods.interval_start_at,
        in_periods.interval_end_at,
        in_periods.period,
        count(devices.gpu_uuid) as in_service_gpus
    from in_periods
    left join devices
        on
            in_periods.gpu_class = devices.gpu_class
            and in_periods.interval_start_at >= devices.in_service_from_at
            and {{ gpuledger.open_end('devices.in_service_to_at') }} >= in_periods.interval_end_at
    group by
        in_periods.gpu_class, in_periods.interval_start_at, in_periods.interval_end_at, in_periods.period
),

with_allocations as (
    select
        with_devices.gpu_class,
        with_devices.interval_start_at,
        with_devices.interval_end_at,
        with_devices.period,
        with_devices.in_service_gpus,
        coalesce(sum(segments.gpu_equivalents), 0) as allocated_gpu_equivalents
    from with_devices
    left join segments
        on
            with_devices.gpu_class = segments.gpu_class
            and with_devices.interval_start_at >= segments.segment_start_at
            and with_devices.interval_end_at <= segments.segment_end_at
    group by
        with_devices.gpu_class,
        with_devices.interval_start_at,
        with_devices.interval_end_at,
        with_devices.period,
        with_devices.in_service_gpus
),

final as (
    select
        with_allocations.gpu_class,
        with_allocations.period,
        with_allocations.interval_start_at,
        with_allocations.interval_end_at,
        {{ gpuledger.hours_between('with_allocations.interval_start_at', 'with_allocations.interval_end_at') }}
            as interval_hours,
        with_allocations.in_service_gpus,
        with_allocations.allocated_gpu_equivalents,
        coalesce(sum(reservations.reserved_gpus), 0) as reserved_gpus
    from with_allocations
    left join reservations
        on
            with_allocations.gpu_class = reservations.gpu_class
            and with_allocations.interval_start_at >= reservations.valid_from_at
            and {{ gpuledger.open_end('reservations.valid_to_at') }} >= with_allocations.interval_end_at
    group by
        with_allocations.gpu_class,
        with_allocations.period,
        with_allocations.interval_start_at,
        with_allocations.interval_end_at,
        with_allocations.in_service_gpus,
        with_allocations.allocated_gpu_equivalents
)

select * from final
