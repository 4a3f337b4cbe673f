{#- Each inventory GPU with its rate class: the policy's gpu_classes.csv mapping of its model
    wins; the CMDB's own class is the fallback; otherwise 'unclassified'. -#}
with

devices as (
    select * from {{ ref('stg_inventory__devices') }}
),

gpu_classes as (
    select * from {{ ref('stg_policy__gpu_classes') }}
),

final as (
    select
        devices.gpu_uuid,
        devices.node_name,
        devices.gpu_model,
        coalesce(gpu_classes.gpu_class, devices.inventory_gpu_class, 'unclassified') as gpu_class,
        devices.in_service_from_at,
        devices.in_service_to_at
    from devices
    left join gpu_classes
        on devices.gpu_model = gpu_classes.gpu_model
)

select * from final
