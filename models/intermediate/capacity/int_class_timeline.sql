{#- Per GPU class, the timeline cut at every allocation, device service and reservation
    boundary and at every period start and end: in each interval the in-service GPUs, the
    allocated GPU-equivalents and the reserved GPUs are constant. The same sweep as the
    tenants' (int_tenant_class_timeline) at the class's grain: its allocation and reservation
    deltas are the sums of its tenants' deltas at each instant, plus the devices entering and
    leaving service; running sums (O(n log n), no range join). Feeds the instant-level checks
    and int_capacity_idle_timeline. -#}
with

tenant_timeline as (
    select * from {{ ref('int_tenant_class_timeline') }}
),

devices as (
    select * from {{ ref('int_devices_classified') }}
),

periods as (
    select * from {{ ref('int_periods') }}
),

classes as (
    select distinct gpu_class from tenant_timeline
    union
    select distinct gpu_class from devices
),

deltas as (
    select
        gpu_class,
        interval_start_at as event_at,
        allocated_delta,
        0 as device_delta,
        reserved_delta
    from tenant_timeline
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

levels as (
    {{ gpuledger.event_levels(
        'deltas',
        partition_by=['gpu_class'],
        levels={
            'in_service_gpus': 'device_delta',
            'allocated_gpu_equivalents': 'allocated_delta',
            'reserved_gpus': 'reserved_delta'
        }
    ) }}
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
