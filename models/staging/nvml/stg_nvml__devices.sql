{#- The node-reported device inventory: one row per GPU or MIG device UUID, from its latest
    inventory record. A MIG device carries its parent's UUID and model, and its profile as
    NVML names it (`3g.40gb`, or `1c.3g.40gb` for a compute instance) plus the GPU-instance
    profile (`3g.40gb`) that policy partition weights are keyed on. Error rows (a GPU that
    could not be read, no UUID) stay in raw. -#}
with

devices as (
    select * from {{ source('nvml', 'nvml_devices') }}
),

latest as (
    {{ gpuledger.latest_landed(
        'devices',
        key=['device_uuid'],
        prefer=['observed_at desc'],
        where='device_uuid is not null',
        across_versions={'first_observed_at': 'min(observed_at)'}
    ) }}
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
    from latest
)

select * from final
