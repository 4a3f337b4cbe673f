{#- int_usage_by_tenant has one row per period, tenant and GPU class: returns each key with
    more than one row. -#}
with

usage as (
    select * from {{ ref('int_usage_by_tenant') }}
),

final as (
    select
        period,
        tenant_id,
        gpu_class,
        count(*) as row_count
    from usage
    group by period, tenant_id, gpu_class
    having count(*) > 1
)

select * from final
