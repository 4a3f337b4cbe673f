{#- Lines every charging model adds: shared overhead (split by the overhead_driver setting:
    allocated GPU-hours, evenly among active tenants, or none = centrally funded), approved
    credits (negative amounts), and, under allocation_rate or quota_burst where a cost pool
    exists, the central line for pool cost the usage charges did not recover. -#}
with

overheads as (
    select * from {{ ref('stg_policy__overheads') }}
),

credits as (
    select * from {{ ref('stg_policy__credits') }}
),

pools as (
    select * from {{ ref('stg_policy__cost_pools') }}
),

usage as (
    select * from {{ ref('int_usage_by_tenant') }}
),

reservation_periods as (
    select * from {{ ref('int_reservation_periods') }}
),

settings as (
    select * from {{ ref('stg_policy__settings') }}
),

usage_lines as (
    select * from {{ ref('int_charge_lines_allocation_rate') }}
    union all
    select * from {{ ref('int_charge_lines_quota_burst') }}
),

overhead_totals as (
    select
        period,
        min(currency) as currency,
        sum(overhead_amount) as overhead_amount
    from overheads
    group by period
),

tenant_hours as (
    select
        period,
        tenant_id,
        {{ gpuledger.exact_sum('allocated_gpu_hours') }} as allocated_gpu_hours
    from usage
    group by period, tenant_id
),

active_tenants as (
    select
        period,
        tenant_id
    from usage
    where tenant_id != '__unattributed__'
    union
    select
        period,
        tenant_id
    from reservation_periods
),

overhead_drivers as (
    select
        overhead_totals.period,
        tenant_hours.tenant_id,
        tenant_hours.allocated_gpu_hours as quantity,
        'gpu_hour' as unit,
        cast(overhead_totals.overhead_amount as double) * cast(tenant_hours.allocated_gpu_hours as double)
        / {{ gpuledger.exact_sum(
            'tenant_hours.allocated_gpu_hours', over='partition by overhead_totals.period'
        ) }}
            as raw_amount
    from overhead_totals
    cross join settings
    inner join tenant_hours
        on overhead_totals.period = tenant_hours.period
    where settings.overhead_driver = 'allocated_hours' and tenant_hours.allocated_gpu_hours > 0
    union all
    select
        overhead_totals.period,
        active_tenants.tenant_id,
        1 as quantity,
        'tenant' as unit,
        cast(overhead_totals.overhead_amount as double)
        / count(*) over (partition by overhead_totals.period) as raw_amount
    from overhead_totals
    cross join settings
    inner join active_tenants
        on overhead_totals.period = active_tenants.period
    where settings.overhead_driver = 'even'
),

overhead_participants as (
    select * from overhead_drivers
    union all
    select
        overhead_totals.period,
        '__platform__' as tenant_id,
        1 as quantity,
        'period' as unit,
        overhead_totals.overhead_amount as raw_amount
    from overhead_totals
    where overhead_totals.period not in (select overhead_drivers.period from overhead_drivers)
),

overhead_lines as (
    select
        overhead_participants.period,
        overhead_participants.tenant_id,
        'shared_overhead' as charge_component,
        'shared' as gpu_class,
        cast(round(overhead_participants.quantity, 6) as decimal(18, 6)) as quantity,
        overhead_participants.unit,
        cast(null as decimal(18, 6)) as unit_price,
        {{ gpuledger.largest_remainder_amount(
            'overhead_participants.raw_amount',
            'overhead_totals.overhead_amount',
            'overhead_participants.period',
            'overhead_participants.tenant_id'
        ) }} as amount,
        overhead_totals.currency,
        cast(null as {{ dbt.type_string() }}) as rate_card_version,
        case
            when overhead_participants.tenant_id = '__unattributed__' then 'unattributed'
            else 'policy'
        end as confidence,
        'shared platform overhead, driver: ' || settings.overhead_driver as description
    from overhead_participants
    cross join settings
    inner join overhead_totals
        on overhead_participants.period = overhead_totals.period
),

credit_lines as (
    {#- One credit line per period and tenant; the adjustment ids and reasons it sums are
        named in its description. -#}
    select
        credits.period,
        credits.tenant_id,
        'credit' as charge_component,
        'shared' as gpu_class,
        cast(count(*) as decimal(18, 6)) as quantity,
        'adjustment' as unit,
        cast(-sum(credits.credit_amount) / count(*) as decimal(18, 6)) as unit_price,
        cast(-sum(credits.credit_amount) as decimal(18, 2)) as amount,
        min(settings.currency) as currency,
        cast(null as {{ dbt.type_string() }}) as rate_card_version,
        'policy' as confidence,
        -- noqa: disable=LT02
        {% call gpuledger.string_agg("'; '", order_by='credits.adjustment_id') -%}
            credits.adjustment_id || ': ' || credits.reason
        {%- endcall %} as description
    from credits  -- noqa: enable=LT02
    cross join settings
    group by credits.period, credits.tenant_id
),

recovered as (
    select
        period,
        gpu_class,
        sum(amount) as recovered_amount
    from usage_lines
    group by period, gpu_class
),

unrecovered_lines as (
    select
        pools.period,
        '__platform__' as tenant_id,
        'unrecovered_pool_cost' as charge_component,
        pools.gpu_class,
        cast(1 as decimal(18, 6)) as quantity,
        'pool' as unit,
        cast(null as decimal(18, 6)) as unit_price,
        cast(pools.total_cost - coalesce(recovered.recovered_amount, 0) as decimal(18, 2)) as amount,
        pools.currency,
        cast(null as {{ dbt.type_string() }}) as rate_card_version,
        'policy' as confidence,
        'pool cost not recovered by usage charges (negative: over-recovery)' as description
    from pools
    cross join settings
    left join recovered
        on
            pools.period = recovered.period
            and pools.gpu_class = recovered.gpu_class
    where settings.charging_model in ('allocation_rate', 'quota_burst')
),

final as (
    select * from overhead_lines
    union all
    select * from credit_lines
    union all
    select * from unrecovered_lines
)

select * from final
