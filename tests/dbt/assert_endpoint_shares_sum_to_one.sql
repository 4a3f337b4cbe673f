{#- The tenant shares of a shared endpoint in a period add up to exactly 1 (12-decimal shares
    rounded by largest remainder). Returns the offending endpoints. -#}
with

shares as (
    select * from {{ ref('int_endpoint_shares') }}
),

final as (
    select
        period,
        endpoint_id,
        count(*) as tenant_count,
        sum(share) as share_total
    from shares
    group by period, endpoint_id
    having sum(share) != 1
)

select * from final
