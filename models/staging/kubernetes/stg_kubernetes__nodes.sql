{#- One row per node UID, GPU resource and observed node version (the same version seen twice
    is one observation, kept at its first sighting): what the node advertised and how its
    GPUs are shared. A node time-sliced without renaming advertises `nvidia.com/gpu`
    replicas; its `sharing_strategy` is then `time-slicing`. -#}
with

nodes as (
    select * from {{ source('kubernetes', 'kubernetes_nodes') }}
),

first_sightings as (
    {{ gpuledger.kubernetes_object_versions('nodes', 'node_uid') }}
),

final as (
    select
        observation_id as node_resource_observation_id,
        cluster as cluster_id,
        node_name,
        node_uid,
        resource_name,
        sharing_mode,
        mig_profile,
        capacity as capacity_count,
        allocatable as allocatable_count,
        gpu_product,
        sharing_strategy,
        mig_strategy,
        timeslice_replicas,
        is_unschedulable,
        creation_at as created_at,
        observed_at,
        is_deleted,
        resource_version,
        batch_id,
        extracted_at,
        source_line
    from first_sightings
)

select * from final
