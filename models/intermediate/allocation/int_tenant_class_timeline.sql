{#- The tenant/class level sweep. Per tenant and GPU class, every allocation segment starting
    or ending, every reservation starting or ending and every period boundary is an event;
    between two consecutive events the tenant's allocated GPU-equivalents (its segments
    running then) and its reserved GPUs are constant: running sums of the events' deltas,
    in decimals, so exact (O(n log n), no interval-by-segment range join). At each instant
    the allocation above the reservation is borrowed, the reservation the tenant did not
    allocate itself is unused.

    Built by period (gpuledger.by_period_config; `period` is the month of interval_start_at):
    a build sweeps each period it computes on its own, and the time outside every period
    (before the first, between two that do not meet, after the last: reservations only) in
    every build. A span's sweep opens with the levels at its start: every reservation that
    started before it, and the segments that ended at its start (segments are cut at period
    starts, so those are the only ones running into it), so its levels are the whole
    timeline's, exactly. A tenant and class have rows in a span where one of their segments
    or reservations starts, ends or runs in it: elsewhere both their levels are 0 and
    nothing changes, so a period's rows depend on its own segments and the policy alone, and
    a tenant first seen in a later period adds no rows to a kept one.
    Read by int_allocation_segments (the borrowed split, of the periods it computes),
    int_unused_guarantee and int_capacity_idle_timeline (the unused guarantee), and
    int_class_timeline (a class's levels are the sums of its tenants' deltas). -#}
{{ config(**gpuledger.by_period_config()) }}
with

segments as (
    select * from {{ ref('int_allocation_segments_split') }}
),

reservations as (
    select * from {{ ref('stg_policy__reservations') }}
),

periods as (
    select * from {{ ref('int_periods') }}
),

ordered_periods as (
    select
        period_start_at,
        period_end_at,
        lag(period_end_at) over (order by period_start_at) as previous_end_at,
        lead(period_start_at) over (order by period_start_at) as next_start_at
    from periods
),

spans as (
    {#- [span_start_at, span_end_at), null where unbounded: the periods this build computes,
        and the time outside every period -#}
    select
        period_start_at as span_start_at,
        period_end_at as span_end_at
    from periods
    where {{ gpuledger.live_period('period') }}
    union all
    select
        previous_end_at as span_start_at,
        period_start_at as span_end_at
    from ordered_periods
    where previous_end_at is null or previous_end_at < period_start_at
    union all
    select
        period_end_at as span_start_at,
        cast(null as timestamp) as span_end_at
    from ordered_periods
    where next_start_at is null
    union all
    select
        cast(null as timestamp) as span_start_at,
        cast(null as timestamp) as span_end_at
    where not exists (select 1 from periods)
),

segment_spans as (
    {#- every segment in a span or ending at its start -#}
    select
        segments.tenant_id,
        segments.gpu_class,
        segments.gpu_equivalents,
        segments.segment_start_at,
        segments.segment_end_at,
        spans.span_start_at,
        spans.span_end_at
    from segments
    inner join spans
        on
            (spans.span_end_at is null or segments.segment_start_at < spans.span_end_at)
            and (spans.span_start_at is null or segments.segment_end_at >= spans.span_start_at)
),

reservation_spans as (
    {#- every reservation that started before a span's end -#}
    select
        reservations.tenant_id,
        reservations.gpu_class,
        reservations.reserved_gpus,
        reservations.valid_from_at,
        reservations.valid_to_at,
        spans.span_start_at,
        spans.span_end_at
    from reservations
    cross join spans
    where spans.span_end_at is null or reservations.valid_from_at < spans.span_end_at
),

present as (
    select
        tenant_id,
        gpu_class,
        span_start_at,
        span_end_at
    from segment_spans
    union
    select
        tenant_id,
        gpu_class,
        span_start_at,
        span_end_at
    from reservation_spans
    where valid_to_at is null or span_start_at is null or valid_to_at >= span_start_at
),

{#- (rows, event instant, allocated delta, reserved delta, which rows): a segment's start
    wherever it lies (before the span: the level the span opens with), its end and the
    reservations' ends where they lie before the span's end, and each span's boundaries -#}
{%- set events = [
    ('segment_spans', 'segment_start_at', 'gpu_equivalents', '0', 'true'),
    ('segment_spans', 'segment_end_at', '-gpu_equivalents', '0',
        'span_end_at is null or segment_end_at < span_end_at'),
    ('reservation_spans', 'valid_from_at', '0', 'reserved_gpus', 'true'),
    ('reservation_spans', 'valid_to_at', '0', '-reserved_gpus',
        'valid_to_at is not null and (span_end_at is null or valid_to_at < span_end_at)'),
    ('present', 'span_start_at', '0', '0', 'span_start_at is not null'),
    ('present', 'span_end_at', '0', '0', 'span_end_at is not null')
] %}

deltas as (
    {%- for rows, event_at, allocated, reserved, condition in events %}
    select
        tenant_id,
        gpu_class,
        span_start_at,
        span_end_at,
        {{ event_at }} as event_at,
        {{ allocated }} as allocated_delta,
        {{ reserved }} as reserved_delta
    from {{ rows }}
    where {{ condition }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
),

levels as (
    {{ gpuledger.event_levels(
        'deltas',
        partition_by=['tenant_id', 'gpu_class', 'span_start_at', 'span_end_at'],
        levels={'allocated_gpu_equivalents': 'allocated_delta', 'reserved_gpus': 'reserved_delta'}
    ) }}
),

final as (
    select
        tenant_id,
        gpu_class,
        interval_start_at,
        interval_end_at,
        allocated_delta,
        allocated_gpu_equivalents,
        reserved_delta,
        reserved_gpus,
        greatest(allocated_gpu_equivalents - reserved_gpus, 0) as borrowed_gpu_equivalents,
        greatest(reserved_gpus - allocated_gpu_equivalents, 0) as unused_reserved_gpus,
        {{ gpuledger.period_of('interval_start_at') }} as period
    from levels
    where
        (span_start_at is null or interval_start_at >= span_start_at)
        and (span_end_at is null or interval_start_at < span_end_at)
)

select * from final
