with

source as (
    select * from {{ source('policy', 'endpoint_weights') }}
),

final as (
    select
        weight_version,
        endpoint_id,
        unit,
        cast(weight as decimal(18, 6)) as weight,
        cast(valid_from as timestamp) as valid_from_at,
        cast(nullif(valid_to, '') as timestamp) as valid_to_at
    from source
)

select * from final
