{#- fact_showback has one row per period and tenant: returns each period and tenant with
    more than one. -#}
with

showback as (
    select * from {{ ref('fact_showback') }}
),

final as (
    select
        period,
        tenant_id,
        count(*) as row_count
    from showback
    group by period, tenant_id
    having count(*) > 1
)

select * from final
