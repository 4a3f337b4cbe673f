with

source as (
    select * from {{ source('policy', 'tenants') }}
),

final as (
    select
        tenant_id,
        tenant_name,
        nullif(department, '') as department,
        nullif(cost_center, '') as cost_center
    from source
)

select * from final
