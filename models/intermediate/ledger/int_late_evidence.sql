{{ config(materialized='view') }}
{#- One row per closed period that late evidence touches: a batch the close was not computed
    from (ledger.close_batches) that landed records and whose evidence span (its manifest's
    coverage) overlaps the period. `target_period` is the next open period, where its
    Correction lines go: the month after the corrected one, or after the latest closed month
    that follows it. A view: the ledger is read live. -#}
with

closed as (
    select * from {{ ref('int_closed_periods') }}
),

close_batches as (
    select * from {{ ref('stg_ledger__close_batches') }}
),

batches as (
    select * from {{ ref('stg_landing__batches') }}
),

closed_windows as (
    select
        period,
        close_id,
        cast(period || '-01 00:00:00' as timestamp) as period_start_at
    from closed
),

late as (
    select distinct
        closed_windows.period,
        closed_windows.close_id,
        closed_windows.period_start_at
    from closed_windows
    inner join batches
        on
            closed_windows.period_start_at <= batches.coverage_end_at
            and {{ gpuledger.add_months('closed_windows.period_start_at', 1) }}
            > batches.coverage_start_at
    left join close_batches
        on
            closed_windows.close_id = close_batches.close_id
            and batches.batch_id = close_batches.batch_id
    where batches.records_landed > 0 and close_batches.batch_id is null
),

candidates as (
    -- the next open period after P is P + 1 month, or the month after a later closed period
    select
        late.period as corrected_period,
        {{ gpuledger.add_months('late.period_start_at', 1) }} as candidate_start_at
    from late
    union all
    select
        late.period as corrected_period,
        {{ gpuledger.add_months('closed_windows.period_start_at', 1) }} as candidate_start_at
    from late
    inner join closed_windows
        on late.period < closed_windows.period
),

next_open as (
    select
        candidates.corrected_period,
        {{ gpuledger.period_of('min(candidates.candidate_start_at)') }} as target_period
    from candidates
    left join closed
        on {{ gpuledger.period_of('candidates.candidate_start_at') }} = closed.period
    where closed.period is null
    group by candidates.corrected_period
),

final as (
    select
        late.period,
        late.close_id,
        late.period_start_at,
        next_open.target_period
    from late
    inner join next_open
        on late.period = next_open.corrected_period
)

select * from final
