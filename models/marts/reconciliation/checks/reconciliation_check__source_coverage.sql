{#- Completeness: every expected source covers the period through its end plus its settle lag
    (int_expected_sources). Gaps no batch covers, longer than coverage_gap_tolerance_minutes
    (default 60), are summed in hours and listed per source and UTC day; a period no source
    is expected to cover (nothing landed for it, and the policy names none) passes. -#}
with

periods as (
    select * from {{ ref('int_periods') }}
),

expected as (
    select * from {{ ref('int_expected_sources') }}
),

gaps as (
    select * from {{ ref('int_source_coverage_gaps') }}
),

settings as (
    select * from {{ ref('stg_policy__settings') }}
),

counted_gaps as (
    select gaps.*
    from gaps
    cross join settings
    where gaps.gap_hours * 60 > settings.coverage_gap_tolerance_minutes
),

gap_days as (
    select
        period,
        source_name,
        gap_start_at,
        gap_end_at,
        {{ gpuledger.day_starts('gap_start_at', gpuledger.add_seconds('gap_end_at', 'cast(-1 as bigint)')) }}
            as day_start_at
    from counted_gaps
),

day_hours as (
    select
        period,
        source_name,
        cast(day_start_at as date) as gap_date,
        {{ gpuledger.exact_sum(gpuledger.hours_between(
            'greatest(gap_start_at, day_start_at)',
            'least(gap_end_at, ' ~ gpuledger.add_seconds('day_start_at', 'cast(86400 as bigint)') ~ ')'
        )) }} as uncovered_hours
    from gap_days
    group by period, source_name, cast(day_start_at as date)
),

day_runs as (
    {#- consecutive whole days of one source merge into one run (so a missing month reads as
        one entry); a partly covered day stays its own -#}
    select
        period,
        source_name,
        min(gap_date) as first_date,
        max(gap_date) as last_date,
        {{ gpuledger.exact_sum('uncovered_hours') }} as uncovered_hours
    from (
        select
            *,
            case
                when uncovered_hours >= 24
                    then {{ gpuledger.date_minus_days('gap_date', 'row_number() over (
                        partition by period, source_name, uncovered_hours >= 24 order by gap_date
                    )') }}
            end as run_key,
            row_number() over (partition by period, source_name order by gap_date) as day_number
        from day_hours
    ) as numbered
    group by
        period,
        source_name,
        coalesce(
            cast(run_key as {{ dbt.type_string() }}),
            'day ' || cast(day_number as {{ dbt.type_string() }})
        )
),

expected_list as (
    select
        period,
        -- noqa: disable=LT02
        {% call gpuledger.string_agg("', '", order_by='source_name') -%}
            source_name
        {%- endcall %} as sources
    from expected  -- noqa: enable=LT02
    group by period
),

measured as (
    select
        periods.period,
        coalesce({{ gpuledger.exact_sum('day_runs.uncovered_hours') }}, 0) as observed_value,
        cast(0 as double) as limit_value,
        -- noqa: disable=LT02
        case
            when expected_list.sources is null then 'no source is expected to cover the period'
            when count(day_runs.first_date) = 0
                then expected_list.sources || ' cover the period through its settle lag'
            else {% call gpuledger.string_agg(
                "'; '", order_by='day_runs.source_name, day_runs.first_date'
            ) -%}
                day_runs.source_name || ' ' || cast(day_runs.first_date as {{ dbt.type_string() }})
                || case
                    when day_runs.last_date > day_runs.first_date
                        then '..' || cast(day_runs.last_date as {{ dbt.type_string() }})
                    else ''
                end
                || ' ' || cast(round(day_runs.uncovered_hours, 2) as {{ dbt.type_string() }}) || ' h'
            {%- endcall %}
        end as detail
        -- noqa: enable=LT02
    from periods
    left join day_runs
        on periods.period = day_runs.period
    left join expected_list
        on periods.period = expected_list.period
    group by periods.period, expected_list.sources
),

final as (
    {{ gpuledger.reconciliation_check(
        'source_coverage', 'measured', gpuledger.reconciliation_status('within_tolerance')
    ) }}
)

select * from final
