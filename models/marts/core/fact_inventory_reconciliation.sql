{#- One row per GPU known to the approved inventory or reported by telemetry: the CMDB
    export reconciled against the devices NVML, DCGM and the vGPU hosts actually reported.
    `finding` is ok | unreported (in service, on a node whose telemetry is landed, but
    never reported) | not_in_inventory (reported, absent from the CMDB) | node_mismatch |
    reported_out_of_service (reported outside its in-service interval). -#}
with

devices as (
    select * from {{ ref('int_devices_classified') }}
),

reported as (
    select * from {{ ref('int_reported_devices') }}
),

reporting_nodes as (
    select distinct node_name from reported
),

joined as (
    select
        coalesce(devices.gpu_uuid, reported.gpu_uuid) as gpu_uuid,
        devices.node_name as inventory_node_name,
        reported.node_name as reported_node_name,
        devices.gpu_model,
        devices.gpu_class,
        devices.in_service_from_at,
        devices.in_service_to_at,
        reported.reported_by,
        reported.first_reported_at,
        reported.last_reported_at,
        devices.gpu_uuid is not null as is_in_inventory,
        reported.gpu_uuid is not null as is_reported,
        reporting_nodes.node_name is not null as is_node_reporting
    from devices
    full outer join reported
        on devices.gpu_uuid = reported.gpu_uuid
    left join reporting_nodes
        on devices.node_name = reporting_nodes.node_name
),

final as (
    select
        *,
        case
            when not is_in_inventory then 'not_in_inventory'
            when is_reported and inventory_node_name != reported_node_name then 'node_mismatch'
            when
                is_reported
                and (
                    last_reported_at < in_service_from_at
                    or first_reported_at >= {{ gpuledger.open_end('in_service_to_at') }}
                )
                then 'reported_out_of_service'
            when not is_reported and is_node_reporting then 'unreported'
            else 'ok'
        end as finding
    from joined
)

select * from final
