{{ config(materialized='view') }}
{#- One row per closed period that late evidence touches: a batch the close was not computed
    from (ledger.close_batches) that landed records, whose evidence span (its manifest's
    coverage) overlaps the period, and that no standing close has settled yet. `target_period`
    is the next open period, where its Correction lines go: the month after the corrected one,
    or after the latest closed month that follows it.

    A late batch is settled by the close of a later period that read it and that was the next
    open period when it closed (every month between the two was closed before it): that close
    published the corrected period's restatement with the batch in it. Until then the period is
    restated by every build; after it, only a batch landed since makes the period late again
    (and its corrections are the difference against what the standing closes published). A
    reopened settling close settles nothing. A view: the ledger is read live. -#}
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
        closed_at,
        cast(period || '-01 00:00:00' as timestamp) as period_start_at,
        cast(substr(period, 1, 4) as int) * 12 + cast(substr(period, 6, 2) as int)
            as month_number
    from closed
),

late_batches as (
    select distinct
        closed_windows.period,
        closed_windows.close_id,
        closed_windows.period_start_at,
        closed_windows.month_number,
        batches.batch_id
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

{# The standing closes of later periods that read a late batch, with the months between the
    two periods that were closed before it (by their standing close). #}
settling_closes as (
    select
        late_batches.period,
        late_batches.batch_id,
        settler.close_id,
        settler.month_number - late_batches.month_number - 1 as months_between,
        count(closed_between.close_id) as closed_before
    from late_batches
    inner join closed_windows as settler
        on late_batches.month_number < settler.month_number
    inner join close_batches as settler_batches
        on
            settler.close_id = settler_batches.close_id
            and late_batches.batch_id = settler_batches.batch_id
    left join closed_windows as closed_between
        on
            late_batches.month_number < closed_between.month_number
            and settler.month_number > closed_between.month_number
            and settler.closed_at > closed_between.closed_at
    group by
        late_batches.period,
        late_batches.batch_id,
        settler.close_id,
        settler.month_number,
        late_batches.month_number
),

settled as (
    select distinct
        period,
        batch_id
    from settling_closes
    where closed_before = months_between
),

late as (
    select distinct
        late_batches.period,
        late_batches.close_id,
        late_batches.period_start_at
    from late_batches
    left join settled
        on
            late_batches.period = settled.period
            and late_batches.batch_id = settled.batch_id
    where settled.batch_id is null
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
