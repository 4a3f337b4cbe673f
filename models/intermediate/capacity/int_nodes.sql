{#- One row per inventory node: its GPU model and class (nodes are homogeneous; a test checks). -#}
with

devices as (
    select * from {{ ref('int_devices_classified') }}
),

final as (
    select
        node_name,
        min(gpu_model) as gpu_model,
        min(gpu_class) as gpu_class,
        count(distinct gpu_model) as gpu_model_count,
        count(*) as gpu_count
    from devices
    group by node_name
)

select * from final
