with

source as (
    select * from {{ source('policy', 'expected_sources') }}
),

final as (
    select
        source as source_name,
        cast(nullif(settle_lag_hours, '') as decimal(18, 6)) as settle_lag_hours
    from source
)

select * from final
