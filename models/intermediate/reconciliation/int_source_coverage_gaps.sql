{#- One row per period, expected source (int_expected_sources) and stretch of time no batch
    of that source covers within the span it must cover. A batch covers its manifest's
    evidence span (coverage_start_at..coverage_end_at: the sacct window, query range or
    sampler run the format states, else its earliest record to its extraction instant);
    overlapping spans merge (a running maximum of the ends covered so far). -#}
with

batches as (
    select * from {{ ref('stg_landing__batches') }}
),

windows as (
    select * from {{ ref('int_expected_sources') }}
),

spans as (
    select
        source_name,
        coverage_start_at,
        coverage_end_at
    from batches
    where coverage_start_at is not null
),

clipped as (
    select
        windows.period,
        windows.source_name,
        windows.window_start_at,
        windows.window_end_at,
        greatest(spans.coverage_start_at, windows.window_start_at) as span_start_at,
        least(spans.coverage_end_at, windows.window_end_at) as span_end_at
    from windows
    inner join spans
        on
            windows.source_name = spans.source_name
            and windows.window_end_at > spans.coverage_start_at
            and windows.window_start_at < spans.coverage_end_at
),

covered_before as (
    select
        *,
        max(span_end_at) over (
            partition by period, source_name
            order by span_start_at, span_end_at
            rows between unbounded preceding and 1 preceding
        ) as covered_until_at
    from clipped
),

inner_gaps as (
    select
        period,
        source_name,
        coalesce(covered_until_at, window_start_at) as gap_start_at,
        span_start_at as gap_end_at
    from covered_before
    where span_start_at > coalesce(covered_until_at, window_start_at)
),

tail_gaps as (
    select
        windows.period,
        windows.source_name,
        coalesce(max(clipped.span_end_at), windows.window_start_at) as gap_start_at,
        windows.window_end_at as gap_end_at
    from windows
    left join clipped
        on
            windows.period = clipped.period
            and windows.source_name = clipped.source_name
    group by windows.period, windows.source_name, windows.window_start_at, windows.window_end_at
    having coalesce(max(clipped.span_end_at), windows.window_start_at) < windows.window_end_at
),

final as (
    select
        period,
        source_name,
        gap_start_at,
        gap_end_at,
        {{ gpuledger.hours_between('gap_start_at', 'gap_end_at') }} as gap_hours
    from (
        select * from inner_gaps
        union all
        select * from tail_gaps
    ) as gaps
)

select * from final
