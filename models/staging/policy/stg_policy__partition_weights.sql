with

source as (
    select * from {{ source('policy', 'partition_weights') }}
),

final as (
    select
        sharing_mode,
        gpu_model,
        profile,
        cast(capacity_fraction as decimal(18, 6)) as capacity_fraction
    from source
)

select * from final
