{#- The node-reported device inventory: one row per GPU or MIG device UUID, from its latest
    inventory record. A MIG device carries its parent's UUID and model, and its profile as
    NVML names it (`3g.40gb`, or `1c.3g.40gb` for a compute instance) plus the GPU-instance
    profile (`3g.40gb`) that policy partition weights are keyed on. Error rows (a GPU that
    could not be read, no UUID) stay in raw. -#}
with

devices as (
    select * from {{ source('nvml', 'nvml_devices') }}
),

batches as (
    select * from {{ ref('stg_landing__batches') }}
),

landed as (
    select
        devices.*,
        batches.extracted_at
    from devices
    inner join batches
        on devices.batch_id = batches.batch_id
    where devices.device_uuid is not null
),

ranked as (
    select
        *,
        min(observed_at) over (partition by device_uuid) as first_observed_at,
        row_number() over (
            partition by device_uuid
            order by observed_at desc, extracted_at desc, batch_id desc, source_line desc
        ) as report_rank
    from landed
),

final as (
    select
        device_uuid,
        gpu_uuid,
        host as node_name,
        device_kind,
        device_kind = 'mig' as is_mig,
        gpu_index,
        mig_index,
        device_name,
        gpu_name as gpu_model,
        memory_total_bytes,
        mig_mode_current = 1 as is_mig_enabled,
        mig_mode_pending = 1 as is_mig_enabled_pending,
        mig_profile,
        nullif(
            regexp_extract(mig_profile, '[0-9]+g[.][0-9]+gb([+][a-z]+)?$', 0), ''
        ) as gpu_instance_profile,
        gpu_instance_id,
        compute_instance_id,
        first_observed_at,
        observed_at as last_observed_at,
        batch_id
    from ranked
    where report_rank = 1
)

select * from final
