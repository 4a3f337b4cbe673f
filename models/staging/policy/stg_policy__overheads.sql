with

source as (
    select * from {{ source('policy', 'overheads') }}
),

final as (
    select
        period,
        overhead_id,
        cast(amount as decimal(18, 2)) as overhead_amount,
        currency,
        nullif(description, '') as description
    from source
)

select * from final
