{#- No negative intervals per period: no Slurm job (or heterogeneous-job component) that
    starts in the period ends before it started. -#}
with

periods as (
    select * from {{ ref('int_periods') }}
),

negative as (
    select * from {{ ref('int_negative_interval_jobs') }}
),

findings as (
    select
        periods.period,
        negative.component_id,
        1 as observed_value,
        negative.component_id as finding
    from negative
    inner join periods
        on
            negative.started_at >= periods.period_start_at
            and negative.started_at < periods.period_end_at
),

measured as (
    {{ gpuledger.reconciliation_measure('findings', 'none', order_by='component_id') }}
),

final as (
    {{ gpuledger.reconciliation_check(
        'no_negative_intervals', 'measured', gpuledger.reconciliation_status('none_found')
    ) }}
)

select * from final
