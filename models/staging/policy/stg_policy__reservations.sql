with

source as (
    select * from {{ source('policy', 'reservations') }}
),

final as (
    select
        tenant_id,
        gpu_class,
        cast(reserved_gpus as decimal(18, 6)) as reserved_gpus,
        nullif(service_class, '') as service_class,
        cast(valid_from as timestamp) as valid_from_at,
        cast(nullif(valid_to, '') as timestamp) as valid_to_at
    from source
)

select * from final
