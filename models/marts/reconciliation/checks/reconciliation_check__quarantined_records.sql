{#- Quarantined records per period: the records still open in quarantine (no one acknowledged
    or released them) of the batches whose evidence touches the period, as a percent of the
    records those batches read, within the policy's quarantine_tolerance_pct (default 0: any
    open record blocks the close until it is acknowledged or released). A batch whose
    evidence carries no time counts for every period. -#}
with

periods as (
    select * from {{ ref('int_periods') }}
),

quarantine as (
    select * from {{ ref('int_quarantined_records') }}
),

batches as (
    select * from {{ ref('stg_landing__batches') }}
),

settings as (
    select * from {{ ref('stg_policy__settings') }}
),

period_batches as (
    select
        periods.period,
        batches.batch_id,
        batches.records_read
    from periods
    inner join batches
        on
            batches.coverage_start_at is null
            or (
                periods.period_end_at > batches.coverage_start_at
                and periods.period_start_at <= batches.coverage_end_at
            )
),

counts as (
    select
        period_batches.period,
        count(distinct period_batches.batch_id) as batch_count,
        count(case when quarantine.quarantine_status = 'open' then 1 end) as open_count,
        count(case when quarantine.quarantine_status = 'acknowledged' then 1 end)
            as acknowledged_count,
        count(case when quarantine.quarantine_status = 'released' then 1 end) as released_count
    from period_batches
    left join quarantine
        on period_batches.batch_id = quarantine.batch_id
    group by period_batches.period
),

records as (
    select
        period,
        sum(records_read) as records_read
    from period_batches
    group by period
),

measured as (
    select
        periods.period,
        case
            when coalesce(records.records_read, 0) > 0
                then
                    100 * cast(coalesce(counts.open_count, 0) as double)
                    / cast(records.records_read as double)
            else 0
        end as observed_value,
        cast(settings.quarantine_tolerance_pct as double) as limit_value,
        cast(coalesce(counts.open_count, 0) as {{ dbt.type_string() }})
        || ' open of ' || cast(coalesce(records.records_read, 0) as {{ dbt.type_string() }})
        || ' records read ('
        || cast(coalesce(counts.acknowledged_count, 0) as {{ dbt.type_string() }})
        || ' acknowledged, '
        || cast(coalesce(counts.released_count, 0) as {{ dbt.type_string() }})
        || ' released): gpuledger quarantine list --period ' || periods.period as detail
    from periods
    cross join settings
    left join counts
        on periods.period = counts.period
    left join records
        on periods.period = records.period
),

final as (
    {{ gpuledger.reconciliation_check(
        'quarantined_records', 'measured', gpuledger.reconciliation_status('within_limit')
    ) }}
)

select * from final
