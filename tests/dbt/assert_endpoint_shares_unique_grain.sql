{#- int_endpoint_shares has one row per period, endpoint and tenant: returns each key with
    more than one row. -#}
with

endpoint_shares as (
    select * from {{ ref('int_endpoint_shares') }}
),

final as (
    select
        period,
        endpoint_id,
        tenant_id,
        count(*) as row_count
    from endpoint_shares
    group by period, endpoint_id, tenant_id
    having count(*) > 1
)

select * from final
