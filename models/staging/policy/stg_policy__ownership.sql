with

source as (
    select * from {{ source('policy', 'ownership') }}
),

final as (
    select
        scope_type,
        scope_key,
        tenant_id,
        nullif(project_id, '') as project_id,
        cast(valid_from as timestamp) as valid_from_at,
        cast(nullif(valid_to, '') as timestamp) as valid_to_at
    from source
)

select * from final
