{#- Every tenant a charge can name: the policy's tenants plus the two synthetic ones. -#}
with

tenants as (
    select * from {{ ref('stg_policy__tenants') }}
),

synthetic as (
    select
        '__platform__' as tenant_id,
        'Central platform' as tenant_name,
        cast(null as {{ dbt.type_string() }}) as department,
        cast(null as {{ dbt.type_string() }}) as cost_center,
        true as is_synthetic
    union all
    select
        '__unattributed__' as tenant_id,
        'Unattributed (suspense)' as tenant_name,
        cast(null as {{ dbt.type_string() }}) as department,
        cast(null as {{ dbt.type_string() }}) as cost_center,
        true as is_synthetic
),

final as (
    select
        tenant_id,
        tenant_name,
        department,
        cost_center,
        false as is_synthetic
    from tenants
    union all
    select * from synthetic
)

select * from final
