with

source as (
    select * from {{ source('policy', 'endpoint_scopes') }}
),

final as (
    select
        endpoint_id,
        scope_type,
        scope_key,
        coalesce(workload_prefix, '') as workload_prefix,
        cast(valid_from as timestamp) as valid_from_at,
        cast(nullif(valid_to, '') as timestamp) as valid_to_at
    from source
)

select * from final
