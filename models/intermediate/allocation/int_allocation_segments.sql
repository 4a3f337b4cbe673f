{#- Guaranteed vs borrowed, exactly: per tenant and GPU class, every segment start/end and
    reservation start/end is an event; between two consecutive events the tenant's concurrent
    GPU-equivalents and reserved GPUs are constant (running sums of the events' deltas). The
    part above the reservation is borrowed, shared pro rata among the segments running then:
    a segment's borrowed GPU-hours are its GPU-equivalents x the integral of the borrowed
    fraction over its interval, read as the difference of a running integral at its two ends.
    Not hourly-averaged, and O(n log n): no interval-by-segment range join. -#}
with

segments as (
    select * from {{ ref('int_allocation_segments_split') }}
),

reservations as (
    select * from {{ ref('stg_policy__reservations') }}
),

tenant_classes as (
    select distinct
        tenant_id,
        gpu_class
    from segments
),

deltas as (
    select
        tenant_id,
        gpu_class,
        segment_start_at as event_at,
        gpu_equivalents as allocated_delta,
        0 as reserved_delta
    from segments
    union all
    select
        tenant_id,
        gpu_class,
        segment_end_at as event_at,
        -gpu_equivalents as allocated_delta,
        0 as reserved_delta
    from segments
    union all
    select
        reservations.tenant_id,
        reservations.gpu_class,
        reservations.valid_from_at as event_at,
        0 as allocated_delta,
        reservations.reserved_gpus as reserved_delta
    from reservations
    inner join tenant_classes
        on
            reservations.tenant_id = tenant_classes.tenant_id
            and reservations.gpu_class = tenant_classes.gpu_class
    union all
    select
        reservations.tenant_id,
        reservations.gpu_class,
        reservations.valid_to_at as event_at,
        0 as allocated_delta,
        -reservations.reserved_gpus as reserved_delta
    from reservations
    inner join tenant_classes
        on
            reservations.tenant_id = tenant_classes.tenant_id
            and reservations.gpu_class = tenant_classes.gpu_class
    where reservations.valid_to_at is not null
),

events as (
    select
        tenant_id,
        gpu_class,
        event_at,
        sum(allocated_delta) as allocated_delta,
        sum(reserved_delta) as reserved_delta
    from deltas
    group by tenant_id, gpu_class, event_at
),

levels as (
    select
        tenant_id,
        gpu_class,
        event_at,
        lead(event_at) over (partition by tenant_id, gpu_class order by event_at) as next_event_at,
        sum(allocated_delta) over (
            partition by tenant_id, gpu_class order by event_at rows unbounded preceding
        ) as concurrent_gpu_equivalents,
        sum(reserved_delta) over (
            partition by tenant_id, gpu_class order by event_at rows unbounded preceding
        ) as reserved_gpus
    from events
),

borrowed_rate as (
    select
        tenant_id,
        gpu_class,
        event_at,
        case
            when next_event_at is not null and concurrent_gpu_equivalents > reserved_gpus
                then
                    cast(concurrent_gpu_equivalents - reserved_gpus as double)
                    / cast(concurrent_gpu_equivalents as double)
                    * {{ gpuledger.hours_between('event_at', 'next_event_at') }}
            else 0
        end as borrowed_fraction_hours
    from levels
),

running_integral as (
    select
        tenant_id,
        gpu_class,
        event_at,
        coalesce(sum(borrowed_fraction_hours) over (
            partition by tenant_id, gpu_class order by event_at
            rows between unbounded preceding and 1 preceding
        ), 0) as borrowed_fraction_hours_before
    from borrowed_rate
),

final as (
    select
        segments.*,
        segments.gpu_equivalents
        * (at_end.borrowed_fraction_hours_before - at_start.borrowed_fraction_hours_before)
            as borrowed_gpu_hours,
        segments.gpu_hours
        - segments.gpu_equivalents
        * (at_end.borrowed_fraction_hours_before - at_start.borrowed_fraction_hours_before)
            as guaranteed_gpu_hours
    from segments
    inner join running_integral as at_start
        on
            segments.tenant_id = at_start.tenant_id
            and segments.gpu_class = at_start.gpu_class
            and segments.segment_start_at = at_start.event_at
    inner join running_integral as at_end
        on
            segments.tenant_id = at_end.tenant_id
            and segments.gpu_class = at_end.gpu_class
            and segments.segment_end_at = at_end.event_at
)

select * from final
