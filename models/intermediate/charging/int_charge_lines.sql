{#- Every provisional charge line of every period, whichever charging model is configured. -#}
with

allocation_rate as (
    select * from {{ ref('int_charge_lines_allocation_rate') }}
),

quota_burst as (
    select * from {{ ref('int_charge_lines_quota_burst') }}
),

cost_pool as (
    select * from {{ ref('int_charge_lines_cost_pool') }}
),

shared as (
    select * from {{ ref('int_charge_lines_shared') }}
),

endpoint as (
    select * from {{ ref('int_endpoint_charge_lines') }}
),

unioned as (
    select * from allocation_rate
    union all
    select * from quota_burst
    union all
    select * from cost_pool
    union all
    select * from shared
    union all
    select * from endpoint
),

final as (
    select
        {{ surrogate_key([
            'period', 'tenant_id', 'charge_component', 'gpu_class',
            "coalesce(rate_card_version, '')", "coalesce(cast(unit_price as " ~ dbt.type_string() ~ "), '')"
        ]) }} as charge_line_id,
        period,
        tenant_id,
        charge_component,
        gpu_class,
        cast(quantity as decimal(18, 6)) as quantity,
        unit,
        cast(unit_price as decimal(18, 6)) as unit_price,
        cast(amount as decimal(18, 2)) as amount,
        currency,
        rate_card_version,
        confidence,
        cast(null as {{ dbt.type_string() }}) as charge_class,
        description
    from unioned
)

select * from final
