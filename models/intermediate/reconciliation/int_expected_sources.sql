{#- One row per period and source expected to cover it, with the span it must cover: the
    period, through its end plus the source's settle lag. The expected sources are those the
    policy's expected_sources.csv names (each with its settle_lag_hours, else the setting
    settle_lag_hours, default 24); where it names none, every source with evidence in the
    period (a batch whose evidence span overlaps it) is expected. -#}
with

periods as (
    select * from {{ ref('int_periods') }}
),

batches as (
    select * from {{ ref('stg_landing__batches') }}
),

expected_sources as (
    select * from {{ ref('stg_policy__expected_sources') }}
),

settings as (
    select * from {{ ref('stg_policy__settings') }}
),

named as (
    select
        periods.period,
        expected_sources.source_name,
        coalesce(expected_sources.settle_lag_hours, settings.settle_lag_hours)
            as settle_lag_hours
    from periods
    cross join expected_sources
    cross join settings
),

evident as (
    select distinct
        periods.period,
        batches.source_name,
        settings.settle_lag_hours
    from periods
    inner join batches
        on
            periods.period_end_at > batches.coverage_start_at
            and periods.period_start_at < batches.coverage_end_at
    cross join settings
    where not exists (select 1 from expected_sources)
),

final as (
    select
        expected.period,
        expected.source_name,
        expected.settle_lag_hours,
        periods.period_start_at as window_start_at,
        {{ gpuledger.add_seconds('periods.period_end_at', 'expected.settle_lag_hours * 3600') }}
            as window_end_at
    from (
        select * from named
        union all
        select * from evident
    ) as expected
    inner join periods
        on expected.period = periods.period
)

select * from final
