{#- The UTC calendar months the warehouse reports on: every month touched by an allocation of
    any source, every month a policy file names (cost pools, credits, overheads), every month
    that receives Correction lines (int_late_evidence), so it can be closed, and every month a
    reservation is valid in while the evidence covers it (a month in which nothing ran but a
    tenant held a reservation is charged it). The evidence covers the span all the expected
    sources cover together (expected_sources.csv; where it names none, every source whose
    batches record a span): from the latest of their first covered instants to the earliest of
    their last, gaps inside it left to the source_coverage check. -#}
with

allocations as (
    select * from {{ ref('int_allocations') }}
),

cost_pools as (
    select * from {{ ref('stg_policy__cost_pools') }}
),

credits as (
    select * from {{ ref('stg_policy__credits') }}
),

overheads as (
    select * from {{ ref('stg_policy__overheads') }}
),

late_evidence as (
    select * from {{ ref('int_late_evidence') }}
),

reservations as (
    select * from {{ ref('stg_policy__reservations') }}
),

batches as (
    select * from {{ ref('stg_landing__batches') }}
),

expected_sources as (
    select * from {{ ref('stg_policy__expected_sources') }}
),

usage_bounds as (
    select
        min(allocation_start_at) as first_at,
        max(allocation_end_at) as last_at
    from allocations
),

usage_months as (
    select {{ gpuledger.month_starts('first_at', 'last_at') }} as period_start_at
    from usage_bounds
    where first_at is not null
),

policy_months as (
    select cast(period || '-01 00:00:00' as timestamp) as period_start_at from cost_pools
    union all
    select cast(period || '-01 00:00:00' as timestamp) as period_start_at from credits
    union all
    select cast(period || '-01 00:00:00' as timestamp) as period_start_at from overheads
),

correction_months as (
    {#- the next open period of a closed one late evidence touches: its Correction lines
        make it a period even when nothing else happened in it -#}
    select cast(target_period || '-01 00:00:00' as timestamp) as period_start_at
    from late_evidence
),

named_sources as (
    select count(*) as named from expected_sources
),

source_spans as (
    {#- joins, not subqueries: Spark cannot ship a subquery over a union of literal rows -#}
    select
        batches.source_name,
        min(batches.coverage_start_at) as first_at,
        max(batches.coverage_end_at) as last_at
    from batches
    cross join named_sources
    left join expected_sources
        on batches.source_name = expected_sources.source_name
    where
        batches.coverage_start_at is not null
        and (named_sources.named = 0 or expected_sources.source_name is not null)
    group by batches.source_name
),

evidence_span as (
    select
        max(first_at) as first_at,
        min(last_at) as last_at
    from source_spans
),

reserved_spans as (
    {#- greatest and least skip nulls: without evidence, no reservation month -#}
    select
        greatest(reservations.valid_from_at, evidence_span.first_at) as first_at,
        least(coalesce(reservations.valid_to_at, evidence_span.last_at), evidence_span.last_at)
            as end_at
    from reservations
    cross join evidence_span
    where evidence_span.first_at is not null
),

reservation_months as (
    {#- a span's end is exclusive: a reservation to 1 November is not in November -#}
    select
        {{ gpuledger.month_starts('first_at', gpuledger.add_seconds('end_at', -1)) }}
            as period_start_at
    from reserved_spans
    where first_at < end_at
),

months as (
    select cast(period_start_at as timestamp) as period_start_at from usage_months
    union
    select period_start_at from policy_months
    union
    select period_start_at from correction_months
    union
    select cast(period_start_at as timestamp) as period_start_at from reservation_months
),

final as (
    select
        {{ gpuledger.period_of('period_start_at') }} as period,
        period_start_at,
        {{ gpuledger.add_months('period_start_at', 1) }} as period_end_at,
        {{ gpuledger.hours_between('period_start_at', gpuledger.add_months('period_start_at', 1)) }}
            as period_hours
    from months
)

select * from final
