{#- What each cost the policy names for a period was recovered by: per cost pool (period, GPU
    class) its total cost and the sum of the period's charge lines of that class, and per
    period with overheads (gpu_class 'shared') their total and the shared_overhead lines. -#}
with

pools as (
    select * from {{ ref('stg_policy__cost_pools') }}
),

overheads as (
    select * from {{ ref('stg_policy__overheads') }}
),

charges as (
    select * from {{ ref('int_charge_lines') }}
),

pool_lines as (
    select
        period,
        gpu_class,
        sum(amount) as recovered_amount
    from charges
    where gpu_class != 'shared'
    group by period, gpu_class
),

overhead_totals as (
    select
        period,
        sum(overhead_amount) as total_cost
    from overheads
    group by period
),

shared_lines as (
    select
        period,
        sum(amount) as recovered_amount
    from charges
    where charge_component = 'shared_overhead'
    group by period
),

final as (
    select
        pools.period,
        pools.gpu_class,
        pools.total_cost,
        coalesce(pool_lines.recovered_amount, 0) as recovered_amount
    from pools
    left join pool_lines
        on pools.period = pool_lines.period and pools.gpu_class = pool_lines.gpu_class
    union all
    select
        overhead_totals.period,
        'shared' as gpu_class,
        overhead_totals.total_cost,
        coalesce(shared_lines.recovered_amount, 0) as recovered_amount
    from overhead_totals
    left join shared_lines
        on overhead_totals.period = shared_lines.period
)

select * from final
