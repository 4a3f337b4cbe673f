{#- int_endpoint_weighted_units has one row per period, endpoint, tenant, weight version
    and unit: returns each key with more than one row. -#}
with

endpoint_weighted_units as (
    select * from {{ ref('int_endpoint_weighted_units') }}
),

final as (
    select
        period,
        endpoint_id,
        tenant_id,
        weight_version,
        unit,
        count(*) as row_count
    from endpoint_weighted_units
    group by period, endpoint_id, tenant_id, weight_version, unit
    having count(*) > 1
)

select * from final
