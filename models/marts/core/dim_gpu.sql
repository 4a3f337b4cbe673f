{#- One row per physical GPU of the approved inventory, with its class and service interval. -#}
with

devices as (
    select * from {{ ref('int_devices_classified') }}
),

final as (
    select
        gpu_uuid,
        node_name,
        gpu_model,
        gpu_class,
        in_service_from_at,
        in_service_to_at
    from devices
)

select * from final
