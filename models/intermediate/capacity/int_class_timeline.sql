{#- Per GPU class, the timeline cut at every allocation, device service and reservation
    boundary and at every period start and end: in each interval the in-service GPUs, the
    allocated GPU-equivalents and the reserved GPUs are constant. They are running sums of
    the boundaries' deltas (O(n log n), no range join). Feeds the instant-level checks. -#}
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

deltas as (
    select
        gpu_class,
        segment_start_at as event_at,
        gpu_equivalents as allocated_delta,
        0 as device_delta,
        0 as reserved_delta
    from segments
    union all
    select
        gpu_class,
        segment_end_at as event_at,
        -gpu_equivalents as allocated_delta,
        0 as device_delta,
        0 as reserved_delta
    from segments
    union all
    select
        gpu_class,
        in_service_from_at as event_at,
        0 as allocated_delta,
        1 as device_delta,
        0 as reserved_delta
    from devices
    union all
    select
        gpu_class,
        in_service_to_at as event_at,
        0 as allocated_delta,
        -1 as device_delta,
        0 as reserved_delta
    from devices
    where in_service_to_at is not null
    union all
    select
        gpu_class,
        valid_from_at as event_at,
        0 as allocated_delta,
        0 as device_delta,
        reserved_gpus as reserved_delta
    from reservations
    union all
    select
        gpu_class,
        valid_to_at as event_at,
        0 as allocated_delta,
        0 as device_delta,
        -reserved_gpus as reserved_delta
    from reservations
    where valid_to_at is not null
    union all
    select
        classes.gpu_class,
        periods.period_start_at as event_at,
        0 as allocated_delta,
        0 as device_delta,
        0 as reserved_delta
    from classes
    cross join periods
    union all
    select
        classes.gpu_class,
        periods.period_end_at as event_at,
        0 as allocated_delta,
        0 as device_delta,
        0 as reserved_delta
    from classes
    cross join periods
),

events as (
    select
        gpu_class,
        event_at,
        sum(allocated_delta) as allocated_delta,
        sum(device_delta) as device_delta,
        sum(reserved_delta) as reserved_delta
    from deltas
    group by gpu_class, event_at
),

levels as (
    select
        gpu_class,
        event_at as interval_start_at,
        lead(event_at) over (partition by gpu_class order by event_at) as interval_end_at,
        sum(device_delta) over (
            partition by gpu_class order by event_at rows unbounded preceding
        ) as in_service_gpus,
        sum(allocated_delta) over (
            partition by gpu_class order by event_at rows unbounded preceding
        ) as allocated_gpu_equivalents,
        sum(reserved_delta) over (
            partition by gpu_class order by event_at rows unbounded preceding
        ) as reserved_gpus
    from events
),

final as (
    select
        levels.gpu_class,
        periods.period,
        levels.interval_start_at,
        levels.interval_end_at,
        {{ gpuledger.hours_between('levels.interval_start_at', 'levels.interval_end_at') }}
            as interval_hours,
        levels.in_service_gpus,
        levels.allocated_gpu_equivalents,
        levels.reserved_gpus
    from levels
    inner join periods
        on
            levels.interval_start_at >= periods.period_start_at
            and levels.interval_start_at < periods.period_end_at
    where levels.interval_end_at is not null
)

select * from final
