{#- The approved inventory: the latest export's row for each GPU. -#}
with

devices as (
    select * from {{ source('inventory', 'inventory_devices') }}
),

batches as (
    select * from {{ ref('stg_landing__batches') }}
),

ranked as (
    select
        devices.*,
        batches.extracted_at,
        row_number() over (
            partition by devices.gpu_uuid
            order by batches.extracted_at desc, devices.batch_id desc
        ) as report_rank
    from devices
    inner join batches
        on devices.batch_id = batches.batch_id
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
    from ranked
    where report_rank = 1
)

select * from final
