with

source as (
    select * from {{ source('policy', 'rate_card') }}
),

final as (
    select
        rate_card_version,
        cast(valid_from as timestamp) as valid_from_at,
        cast(nullif(valid_to, '') as timestamp) as valid_to_at,
        gpu_class,
        charge_basis,
        cast(unit_price as decimal(18, 6)) as unit_price,
        currency
    from source
)

select * from final
