with

source as (
    select * from {{ source('policy', 'credits') }}
),

final as (
    select
        period,
        tenant_id,
        cast(amount as decimal(18, 2)) as credit_amount,
        reason,
        adjustment_id
    from source
)

select * from final
