with

source as (
    select * from {{ source('policy', 'gpu_classes') }}
),

final as (
    select
        gpu_model,
        gpu_class
    from source
)

select * from final
