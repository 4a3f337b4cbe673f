{#- Guaranteed vs borrowed, exactly: per tenant and GPU class, every segment start/end and
    reservation start/end is an event; between two consecutive events the tenant's concurrent
    GPU-equivalents and reserved GPUs are constant. The part above the reservation is
    borrowed, shared pro rata among the segments running then. Not hourly-averaged. -#}
with

segments as (
    select * from {{ ref('int_allocation_segments_split') }}
),

reservations as (
    select * from {{ ref('stg_policy__reservations') }}
),

events as (
    select
        tenant_id,
        gpu_class,
        segment_start_at as event_at
    from segments
    union
    select
        tenant_id,
        gpu_class,
        segment_end_at as event_at
    from segments
    union
    select
        reservations.tenant_id,
        reservations.gpu_class,
        reservations.valid_from_at as event_at
    from reservations
    union
    select
        reservations.tenant_id,
        reservations.gpu_class,
        reservations.valid_to_at as event_at
    from reservations
    where reservations.valid_to_at is not null
),

elementary as (
    select
        tenant_id,
        gpu_class,
        event_at as interval_start_at,
        lead(event_at) over (partition by tenant_id, gpu_class order by event_at) as interval_end_at
    from events
),

concurrency as (
    select
        elementary.tenant_id,
        elementary.gpu_class,
        elementary.interval_start_at,
        elementary.interval_end_at,
        sum(segments.gpu_equivalents) as concurrent_gpu_equivalents
    from elementary
    inner join segments
        on
            elementary.tenant_id = segments.tenant_id
            and elementary.gpu_class = segments.gpu_class
            and elementary.interval_start_at >= segments.segment_start_at
            and elementary.interval_end_at <= segments.segment_end_at
    where elementary.interval_end_at is not null
    group by
        elementary.tenant_id,
        elementary.gpu_class,
        elementary.interval_start_at,
        elementary.interval_end_at
),

reserved as (
    select
        concurrency.tenant_id,
        concurrency.gpu_class,
        concurrency.interval_start_at,
        concurrency.interval_end_at,
        concurrency.concurrent_gpu_equivalents,
        coalesce(sum(reservations.reserved_gpus), 0) as reserved_gpus
    from concurrency
    left join reservations
        on
            concurrency.tenant_id = reservations.tenant_id
            and concurrency.gpu_class = reservations.gpu_class
            and concurrency.interval_start_at >= reservations.valid_from_at
            and {{ gpuledger.open_end('reservations.valid_to_at') }} >= concurrency.interval_end_at
    group by
        concurrency.tenant_id,
        concurrency.gpu_class,
        concurrency.interval_start_at,
        concurrency.interval_end_at,
        concurrency.concurrent_gpu_equivalents
),

borrowed_share as (
    select
        *,
        case
            when concurrent_gpu_equivalents > reserved_gpus
                then (concurrent_gpu_equivalents - reserved_gpus) / concurrent_gpu_equivalents
            else 0
        end as borrowed_fraction
    from reserved
),

borrowed_by_segment as (
    select
        segments.segment_id,
        sum(
            segments.gpu_equivalents
            * borrowed_share.borrowed_fraction
            * {{ gpuledger.hours_between('borrowed_share.interval_start_at', 'borrowed_share.interval_end_at') }}
        ) as borrowed_gpu_hours
    from segments
    inner join borrowed_share
        on
            segments.tenant_id = borrowed_share.tenant_id
            and segments.gpu_class = borrowed_share.gpu_class
            and segments.segment_start_at <= borrowed_share.interval_start_at
            and segments.segment_end_at >= borrowed_share.interval_end_at
    group by segments.segment_id
),

final as (
    select
        segments.*,
        coalesce(borrowed_by_segment.borrowed_gpu_hours, 0) as borrowed_gpu_hours,
        segments.gpu_hours - coalesce(borrowed_by_segment.borrowed_gpu_hours, 0)
            as guaranteed_gpu_hours
    from segments
    left join borrowed_by_segment
        on segments.segment_id = borrowed_by_segment.segment_id
)

select * from final
