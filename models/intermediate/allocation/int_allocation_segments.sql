{#- Guaranteed vs borrowed, exactly: between two consecutive events of a tenant in a GPU class
    (int_tenant_class_timeline) its allocated GPU-equivalents and reserved GPUs are constant,
    and the part above the reservation is borrowed, shared pro rata among the segments
    running then: a segment's borrowed GPU-hours are its GPU-equivalents x the integral of the
    borrowed fraction (borrowed / allocated GPU-equivalents) over its interval, read as the
    difference of a running integral at its two ends (each an event of its tenant and class:
    the integral before the interval that starts with the segment, and through the interval
    that ends with it). Not hourly-averaged, and O(n log n): no interval-by-segment range
    join. Each interval's term is rounded to 1e-12 hours and summed as a decimal: the sum is
    exact whatever order an engine adds in, so a segment with nothing borrowed gets exactly 0
    (a double running sum left 7e-15 there on DuckDB and nothing on Spark: a borrowed charge
    piece of no GPU-hours on one engine only), and DuckDB and Spark give the same value.
    Exact, the difference does not depend on where the integral starts: it runs over the
    intervals of the periods this build computes (gpuledger.live_period), not over the whole
    timeline. A segment lies in one period (segments are cut at period starts), and so do the
    intervals between its two ends (the one ending with it starts in it), so a segment's
    value is the same whichever periods a build computes (gpuledger.core.period_scope). -#}
{{ config(**gpuledger.by_period_config()) }}
with

segments as (
    select * from {{ ref('int_allocation_segments_split') }}
    where {{ gpuledger.live_period('period') }}
),

tenant_timeline as (
    select * from {{ ref('int_tenant_class_timeline') }}
    where {{ gpuledger.live_period('period') }}
),

borrowed_rate as (
    select
        tenant_id,
        gpu_class,
        interval_start_at,
        interval_end_at,
        case
            when interval_end_at is not null and borrowed_gpu_equivalents > 0
                then
                    cast(borrowed_gpu_equivalents as double)
                    / cast(allocated_gpu_equivalents as double)
                    * {{ gpuledger.hours_between('interval_start_at', 'interval_end_at') }}
            else 0
        end as borrowed_fraction_hours
    from tenant_timeline
),

running_integral as (
    select
        tenant_id,
        gpu_class,
        interval_start_at,
        interval_end_at,
        {{ gpuledger.exact_running_sum(
            'borrowed_fraction_hours', 'tenant_id, gpu_class', 'interval_start_at'
        ) }} as borrowed_fraction_hours_before,
        {{ gpuledger.exact_running_sum(
            'borrowed_fraction_hours', 'tenant_id, gpu_class', 'interval_start_at', through=true
        ) }} as borrowed_fraction_hours_through
    from borrowed_rate
),

borrowed as (
    select
        segments.*,
        segments.gpu_equivalents
        * cast(
            at_end.borrowed_fraction_hours_through - at_start.borrowed_fraction_hours_before
            as double
        ) as borrowed_gpu_hours
    from segments
    inner join running_integral as at_start
        on
            segments.tenant_id = at_start.tenant_id
            and segments.gpu_class = at_start.gpu_class
            and segments.segment_start_at = at_start.interval_start_at
    inner join running_integral as at_end
        on
            segments.tenant_id = at_end.tenant_id
            and segments.gpu_class = at_end.gpu_class
            and segments.segment_end_at = at_end.interval_end_at
),

final as (
    select
        *,
        gpu_hours - borrowed_gpu_hours as guaranteed_gpu_hours
    from borrowed
)

select * from final
