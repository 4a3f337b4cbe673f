{#- The approved inventory: the latest export's row for each GPU. -#}
with

devices as (
    select * from {{ source('inventory', 'inventory_devices') }}
),

latest as (
    {{ gpuledger.latest_landed('devices', key=['gpu_uuid']) }}
),

final as (
    select
        gpu_uuid,
        node as node_name,
        gpu_model,
        gpu_class as inventory_gpu_class,
        in_service_from as in_service_from_at,
        in_service_to as in_service_to_at,
        batch_id,
        extracted_at
    from latest
)

select * from final
