{#- The UTC calendar months the warehouse reports on: every month touched by an allocation of
    any source, every month a policy file names (cost pools, credits, overheads), and every
    month that receives Correction lines (int_late_evidence), so it can be closed. -#}
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

months as (
    select cast(period_start_at as timestamp) as period_start_at from usage_months
    union
    select period_start_at from policy_months
    union
    select period_start_at from correction_months
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
