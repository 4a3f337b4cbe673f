{#- Per GPU class, the timeline cut at every device service, allocation segment, reservation,
    pending-request and period boundary; in each interval the free capacity (GPUs in service
    minus allocated GPU-equivalents) is partitioned, in this order, into
      1. reliability reserve: up to the class's reliability_reserve_gpus (payer: policy);
      2. fragmentation idle: up to the GPU-equivalents of requests then pending for the class
         (they waited while this capacity was free: it could not fit them; payer: platform);
      3. unused guarantee: up to the sum over tenants of reserved GPUs not allocated by the
         tenant itself, max(reserved - allocated, 0) (payer: the tenant);
      4. platform unallocated: the rest (payer: platform).
    Allocated beyond the GPUs in service is a negative capacity difference (suspense), so
    in service = allocated + the four classes + difference, interval by interval.

    Each tenant's unused guarantee changes only at its own events, so the class total is a
    running sum of per-tenant deltas (O(n log n), no tenant x interval join). Where free
    capacity cannot cover all unused guarantees, each tenant keeps the same share of its own:
    unused_guarantee_scale = unused guarantee / the sum; its running integral
    (unused_scale_hours_before) lets int_unused_guarantee attribute the class's hours to
    tenants exactly. -#}
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

pending as (
    select * from {{ ref('int_pending_gpu_demand') }}
),

reserves as (
    select * from {{ ref('stg_policy__reliability_reserves') }}
),

periods as (
    select * from {{ ref('int_periods') }}
),

tenant_classes as (
    select distinct
        tenant_id,
        gpu_class
    from reservations
),

tenant_deltas as (
    {{ gpuledger.tenant_guarantee_deltas() }}
),

tenant_events as (
    select
        tenant_id,
        gpu_class,
        event_at,
        sum(allocated_delta) as allocated_delta,
        sum(reserved_delta) as reserved_delta
    from tenant_deltas
    group by tenant_id, gpu_class, event_at
),

tenant_running as (
    select
        tenant_id,
        gpu_class,
        event_at,
        sum(reserved_delta) over (
            partition by tenant_id, gpu_class order by event_at rows unbounded preceding
        ) as reserved_gpus,
        sum(allocated_delta) over (
            partition by tenant_id, gpu_class order by event_at rows unbounded preceding
        ) as allocated_gpu_equivalents
    from tenant_events
),

tenant_levels as (
    select
        tenant_id,
        gpu_class,
        event_at,
        greatest(round(reserved_gpus - allocated_gpu_equivalents, 9), 0) as unused_reserved_gpus
    from tenant_running
),

unused_deltas as (
    select
        gpu_class,
        event_at,
        unused_reserved_gpus - coalesce(lag(unused_reserved_gpus) over (
            partition by tenant_id, gpu_class order by event_at
        ), 0) as unused_delta
    from tenant_levels
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
        in_service_from_at as event_at,
        1.0 as device_delta,
        0.0 as allocated_delta,
        0.0 as reserved_delta,
        0.0 as pending_delta,
        0.0 as unused_delta
    from devices
    union all
    select
        gpu_class,
        in_service_to_at as event_at,
        -1.0 as device_delta,
        0.0 as allocated_delta,
        0.0 as reserved_delta,
        0.0 as pending_delta,
        0.0 as unused_delta
    from devices
    where in_service_to_at is not null
    union all
    select
        gpu_class,
        segment_start_at as event_at,
        0.0 as device_delta,
        cast(gpu_equivalents as double) as allocated_delta,
        0.0 as reserved_delta,
        0.0 as pending_delta,
        0.0 as unused_delta
    from segments
    union all
    select
        gpu_class,
        segment_end_at as event_at,
        0.0 as device_delta,
        -cast(gpu_equivalents as double) as allocated_delta,
        0.0 as reserved_delta,
        0.0 as pending_delta,
        0.0 as unused_delta
    from segments
    union all
    select
        gpu_class,
        valid_from_at as event_at,
        0.0 as device_delta,
        0.0 as allocated_delta,
        cast(reserved_gpus as double) as reserved_delta,
        0.0 as pending_delta,
        0.0 as unused_delta
    from reservations
    union all
    select
        gpu_class,
        valid_to_at as event_at,
        0.0 as device_delta,
        0.0 as allocated_delta,
        -cast(reserved_gpus as double) as reserved_delta,
        0.0 as pending_delta,
        0.0 as unused_delta
    from reservations
    where valid_to_at is not null
    union all
    select
        gpu_class,
        pending_from_at as event_at,
        0.0 as device_delta,
        0.0 as allocated_delta,
        0.0 as reserved_delta,
        demand_gpu_equivalents as pending_delta,
        0.0 as unused_delta
    from pending
    union all
    select
        gpu_class,
        pending_to_at as event_at,
        0.0 as device_delta,
        0.0 as allocated_delta,
        0.0 as reserved_delta,
        -demand_gpu_equivalents as pending_delta,
        0.0 as unused_delta
    from pending
    union all
    select
        gpu_class,
        event_at,
        0.0 as device_delta,
        0.0 as allocated_delta,
        0.0 as reserved_delta,
        0.0 as pending_delta,
        unused_delta
    from unused_deltas
    union all
    select
        classes.gpu_class,
        periods.period_start_at as event_at,
        0.0 as device_delta,
        0.0 as allocated_delta,
        0.0 as reserved_delta,
        0.0 as pending_delta,
        0.0 as unused_delta
    from classes
    cross join periods
    union all
    select
        classes.gpu_class,
        periods.period_end_at as event_at,
        0.0 as device_delta,
        0.0 as allocated_delta,
        0.0 as reserved_delta,
        0.0 as pending_delta,
        0.0 as unused_delta
    from classes
    cross join periods
),

events as (
    select
        gpu_class,
        event_at,
        sum(device_delta) as device_delta,
        sum(allocated_delta) as allocated_delta,
        sum(reserved_delta) as reserved_delta,
        sum(pending_delta) as pending_delta,
        sum(unused_delta) as unused_delta
    from deltas
    group by gpu_class, event_at
),

levels as (
    select
        gpu_class,
        event_at as interval_start_at,
        lead(event_at) over (partition by gpu_class order by event_at) as interval_end_at,
        round(sum(device_delta) over (
            partition by gpu_class order by event_at rows unbounded preceding
        ), 9) as in_service_gpus,
        round(sum(allocated_delta) over (
            partition by gpu_class order by event_at rows unbounded preceding
        ), 9) as allocated_gpu_equivalents,
        round(sum(reserved_delta) over (
            partition by gpu_class order by event_at rows unbounded preceding
        ), 9) as reserved_gpus,
        greatest(round(sum(pending_delta) over (
            partition by gpu_class order by event_at rows unbounded preceding
        ), 9), 0) as pending_gpu_equivalents,
        greatest(round(sum(unused_delta) over (
            partition by gpu_class order by event_at rows unbounded preceding
        ), 9), 0) as unused_reserved_gpus
    from events
),

in_periods as (
    select
        levels.gpu_class,
        periods.period,
        levels.interval_start_at,
        levels.interval_end_at,
        cast(
            {{ gpuledger.seconds_between('levels.interval_start_at', 'levels.interval_end_at') }}
            as double
        ) / 3600 as interval_hours,
        levels.in_service_gpus,
        levels.allocated_gpu_equivalents,
        levels.reserved_gpus,
        levels.pending_gpu_equivalents,
        levels.unused_reserved_gpus,
        coalesce(cast(reserves.reliability_reserve_gpus as double), 0) as reliability_reserve_gpus,
        greatest(levels.in_service_gpus - levels.allocated_gpu_equivalents, 0) as free_gpus
    from levels
    inner join periods
        on
            levels.interval_start_at >= periods.period_start_at
            and levels.interval_start_at < periods.period_end_at
    left join reserves
        on levels.gpu_class = reserves.gpu_class
    where levels.interval_end_at is not null
),

reserve_taken as (
    select
        *,
        least(reliability_reserve_gpus, free_gpus) as reserve_gpus
    from in_periods
),

fragmentation_taken as (
    select
        *,
        least(pending_gpu_equivalents, free_gpus - reserve_gpus) as fragmentation_gpus
    from reserve_taken
),

guarantee_taken as (
    select
        *,
        least(unused_reserved_gpus, free_gpus - reserve_gpus - fragmentation_gpus)
            as unused_guarantee_gpus
    from fragmentation_taken
),

partitioned as (
    select
        *,
        free_gpus - reserve_gpus - fragmentation_gpus - unused_guarantee_gpus
            as platform_unallocated_gpus,
        least(in_service_gpus - allocated_gpu_equivalents, 0) as capacity_difference_gpus,
        case
            when unused_reserved_gpus > 0 then unused_guarantee_gpus / unused_reserved_gpus
            else 0
        end as unused_guarantee_scale
    from guarantee_taken
),

final as (
    select
        gpu_class,
        period,
        interval_start_at,
        interval_end_at,
        interval_hours,
        in_service_gpus,
        allocated_gpu_equivalents,
        reserved_gpus,
        pending_gpu_equivalents,
        unused_reserved_gpus,
        reliability_reserve_gpus,
        free_gpus,
        in_service_gpus * interval_hours as physical_gpu_hours,
        allocated_gpu_equivalents * interval_hours as allocated_gpu_hours,
        reserve_gpus * interval_hours as reliability_reserve_gpu_hours,
        fragmentation_gpus * interval_hours as fragmentation_idle_gpu_hours,
        unused_guarantee_gpus * interval_hours as unused_guarantee_gpu_hours,
        platform_unallocated_gpus * interval_hours as platform_unallocated_gpu_hours,
        capacity_difference_gpus * interval_hours as capacity_difference_gpu_hours,
        unused_guarantee_scale,
        coalesce(sum(unused_guarantee_scale * interval_hours) over (
            partition by gpu_class order by interval_start_at
            rows between unbounded preceding and 1 preceding
        ), 0) as unused_scale_hours_before
    from partitioned
)

select * from final
