{#- One row per namespace, quota, GPU resource and observed quota version: the same version
    seen twice (a list and a watch event, or a replay after a restart) is one observation,
    kept at its first sighting. `hard_quantity` and `used_quantity` count devices of
    `gpu_resource_name` (GPUs, MIG instances or time-slice replicas). -#}
with

quotas as (
    select * from {{ source('kubernetes', 'kubernetes_resource_quotas') }}
),

first_sightings as (
    {{ gpuledger.kubernetes_object_versions('quotas', 'quota_uid') }}
),

final as (
    select
        observation_id as quota_observation_id,
        cluster as cluster_id,
        namespace as namespace_name,
        quota_name,
        quota_uid,
        resource_name,
        gpu_resource_name,
        sharing_mode,
        mig_profile,
        hard as hard_quantity,
        used as used_quantity,
        observed_at,
        is_deleted,
        resource_version,
        batch_id,
        extracted_at,
        source_line
    from first_sightings
)

select * from final
