{#- Charging model 2, cost pool: a period's pool cost per GPU class splits into a fixed part
    (total x fixed_share), charged by each tenant's reserved share of physical capacity, with
    the unreserved remainder to the central `__platform__` line; and a variable part charged
    at variable cost / eligible allocated GPU-hours. Amounts add up to the pool to the cent. -#}
with

pools as (
    select * from {{ ref('stg_policy__cost_pools') }}
),

capacity as (
    select * from {{ ref('int_capacity_by_class') }}
),

reservation_periods as (
    select * from {{ ref('int_reservation_periods') }}
),

usage as (
    select * from {{ ref('int_usage_by_tenant') }}
),

settings as (
    select * from {{ ref('stg_policy__settings') }}
),

pool_split as (
    select
        pools.period,
        pools.gpu_class,
        pools.currency,
        pools.total_cost,
        cast(round(pools.total_cost * pools.fixed_share, 2) as decimal(18, 2)) as fixed_cost,
        pools.total_cost
        - cast(round(pools.total_cost * pools.fixed_share, 2) as decimal(18, 2)) as variable_cost,
        coalesce(capacity.physical_gpu_hours, 0) as physical_gpu_hours
    from pools
    cross join settings
    left join capacity
        on
            pools.period = capacity.period
            and pools.gpu_class = capacity.gpu_class
    where settings.charging_model = 'cost_pool'
),

reserved as (
    select
        period,
        tenant_id,
        gpu_class,
        {{ gpuledger.exact_sum('reserved_gpu_hours') }} as reserved_gpu_hours
    from reservation_periods
    group by period, tenant_id, gpu_class
),

fixed_tenant as (
    select
        pool_split.period,
        pool_split.gpu_class,
        reserved.tenant_id,
        reserved.reserved_gpu_hours as quantity,
        cast(pool_split.fixed_cost as double) * cast(reserved.reserved_gpu_hours as double)
        / cast(pool_split.physical_gpu_hours as double)
            as raw_amount,
        pool_split.fixed_cost as part_total
    from pool_split
    inner join reserved
        on
            pool_split.period = reserved.period
            and pool_split.gpu_class = reserved.gpu_class
    where pool_split.physical_gpu_hours > 0
),

fixed_platform as (
    select
        pool_split.period,
        pool_split.gpu_class,
        '__platform__' as tenant_id,
        pool_split.physical_gpu_hours - coalesce(sum(fixed_tenant.quantity), 0) as quantity,
        pool_split.fixed_cost - coalesce(sum(fixed_tenant.raw_amount), 0) as raw_amount,
        pool_split.fixed_cost as part_total
    from pool_split
    left join fixed_tenant
        on
            pool_split.period = fixed_tenant.period
            and pool_split.gpu_class = fixed_tenant.gpu_class
    group by pool_split.period, pool_split.gpu_class, pool_split.physical_gpu_hours, pool_split.fixed_cost
),

fixed_participants as (
    select
        *,
        'fixed_capacity' as charge_component,
        'fixed' as part_key
    from fixed_tenant
    union all
    select
        *,
        'central_platform' as charge_component,
        'fixed' as part_key
    from fixed_platform
),

eligible_hours as (
    select
        period,
        gpu_class,
        {{ gpuledger.exact_sum('allocated_gpu_hours') }} as eligible_gpu_hours
    from usage
    group by period, gpu_class
),

variable_tenant as (
    select
        pool_split.period,
        pool_split.gpu_class,
        usage.tenant_id,
        usage.allocated_gpu_hours as quantity,
        cast(pool_split.variable_cost as double) * cast(usage.allocated_gpu_hours as double)
        / cast(eligible_hours.eligible_gpu_hours as double)
            as raw_amount,
        pool_split.variable_cost as part_total,
        'variable_usage' as charge_component,
        'variable' as part_key
    from pool_split
    inner join eligible_hours
        on
            pool_split.period = eligible_hours.period
            and pool_split.gpu_class = eligible_hours.gpu_class
    inner join usage
        on
            pool_split.period = usage.period
            and pool_split.gpu_class = usage.gpu_class
    where eligible_hours.eligible_gpu_hours > 0
),

variable_unused as (
    select
        pool_split.period,
        pool_split.gpu_class,
        '__platform__' as tenant_id,
        cast(0 as double) as quantity,
        pool_split.variable_cost as raw_amount,
        pool_split.variable_cost as part_total,
        'central_platform' as charge_component,
        'variable' as part_key
    from pool_split
    left join eligible_hours
        on
            pool_split.period = eligible_hours.period
            and pool_split.gpu_class = eligible_hours.gpu_class
    where coalesce(eligible_hours.eligible_gpu_hours, 0) = 0
),

participants as (
    {#- each part carries its pool's total (the fixed or the variable cost) to spread -#}
    select * from fixed_participants
    union all
    select * from variable_tenant
    union all
    select * from variable_unused
),

amounts as (
    select
        participants.*,
        {{ gpuledger.largest_remainder_amount(
            'participants.raw_amount',
            'participants.part_total',
            'participants.period, participants.gpu_class, participants.part_key',
            'participants.tenant_id'
        ) }} as amount
    from participants
),

lines as (
    {#- The fixed and variable parts meet in one central line when a pool has no capacity and
        no usage: sum per grain so every line is one row. -#}
    select
        period,
        tenant_id,
        charge_component,
        gpu_class,
        sum(quantity) as quantity,
        sum(amount) as amount
    from amounts
    group by period, tenant_id, charge_component, gpu_class
),

final as (
    select
        lines.period,
        lines.tenant_id,
        lines.charge_component,
        lines.gpu_class,
        cast(round(lines.quantity, 6) as decimal(18, 6)) as quantity,
        case
            when lines.charge_component = 'variable_usage' then 'gpu_hour'
            when lines.charge_component = 'fixed_capacity' then 'reserved_gpu_hour'
            else 'unreserved_gpu_hour'
        end as unit,
        case
            when lines.quantity > 0
                then cast(round(lines.amount / lines.quantity, 6) as decimal(18, 6))
        end as unit_price,
        cast(lines.amount as decimal(18, 2)) as amount,
        pool_split.currency,
        cast(null as {{ dbt.type_string() }}) as rate_card_version,
        case
            when lines.tenant_id = '__unattributed__' then 'unattributed'
            when lines.charge_component = 'variable_usage' then 'high'
            else 'policy'
        end as confidence,
        case
            when lines.charge_component = 'fixed_capacity'
                then 'fixed pool cost x reserved share of physical capacity'
            when lines.charge_component = 'variable_usage'
                then 'variable pool cost / eligible allocated GPU-hours'
            else 'unreserved remainder of the pool, centrally funded'
        end as description
    from lines
    inner join pool_split
        on
            lines.period = pool_split.period
            and lines.gpu_class = pool_split.gpu_class
)

select * from final
