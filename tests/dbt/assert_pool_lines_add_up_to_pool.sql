{#- Under charging_model = cost_pool, the lines of int_charge_lines_cost_pool for each period
    and GPU class add up to that pool's total cost exactly, to the cent (largest remainder),
    and no line exists without a pool. Returns the offending pools. -#}
with

pools as (
    select * from {{ ref('stg_policy__cost_pools') }}
),

pool_lines as (
    select * from {{ ref('int_charge_lines_cost_pool') }}
),

settings as (
    select * from {{ ref('stg_policy__settings') }}
),

line_totals as (
    select
        period,
        gpu_class,
        count(*) as line_count,
        sum(amount) as line_amount
    from pool_lines
    group by period, gpu_class
),

final as (
    select
        coalesce(pools.period, line_totals.period) as period,
        coalesce(pools.gpu_class, line_totals.gpu_class) as gpu_class,
        pools.total_cost,
        line_totals.line_count,
        line_totals.line_amount
    from pools
    full outer join line_totals
        on
            pools.period = line_totals.period
            and pools.gpu_class = line_totals.gpu_class
    cross join settings
    where
        settings.charging_model = 'cost_pool'
        and (
            pools.period is null
            or line_totals.period is null
            or pools.total_cost != line_totals.line_amount
        )
)

select * from final
