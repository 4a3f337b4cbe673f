{#- Where a GPU class held more than its GPUs in service, per period, class and measure:
    `allocated` (the allocated GPU-equivalents) or `reserved` (the reserved GPUs), over the
    intervals of the class timeline where the measure exceeds the GPUs in service: how many
    intervals, the first and last instant, the worst excess and the excess GPU-hours, and a
    summary for the checks' detail ("h100: 3 intervals between <first> and <last>, worst 2"). -#}
with

timeline as (
    select * from {{ ref('int_class_timeline') }}
),

measures as (
    select 'allocated' as measure
    union all
    select 'reserved' as measure
),

held as (
    select
        timeline.period,
        timeline.gpu_class,
        measures.measure,
        timeline.interval_start_at,
        timeline.interval_end_at,
        timeline.interval_hours,
        case
            when measures.measure = 'allocated' then timeline.allocated_gpu_equivalents
            else timeline.reserved_gpus
        end - timeline.in_service_gpus as excess_gpus
    from timeline
    cross join measures
),

excess as (
    select
        period,
        gpu_class,
        measure,
        count(*) as interval_count,
        min(interval_start_at) as first_at,
        max(interval_end_at) as last_at,
        max(excess_gpus) as worst_excess_gpus,
        {{ gpuledger.exact_sum('excess_gpus * interval_hours') }} as excess_gpu_hours
    from held
    where excess_gpus > 0
    group by period, gpu_class, measure
),

final as (
    select
        *,
        gpu_class || ': ' || cast(interval_count as {{ dbt.type_string() }})
        || ' intervals between ' || cast(first_at as {{ dbt.type_string() }})
        || ' and ' || cast(last_at as {{ dbt.type_string() }})
        || ', worst ' || cast(worst_excess_gpus as {{ dbt.type_string() }}) as excess_summary
    from excess
)

select * from final
