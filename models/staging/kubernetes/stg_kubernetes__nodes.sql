{#- One row per node UID, GPU resource and observed node version (the same version seen twice
    is one observation, kept at its first sighting): what the node advertised and how its
    GPUs are shared. A node time-sliced without renaming advertises `nvidia.com/gpu`
    replicas; its `sharing_strategy` is then `time-slicing`. -#}
with

nodes as (
    select * from {{ source('kubernetes', 'kubernetes_nodes') }}
),

batches as (
    select * from {{ ref('stg_landing__batches') }}
),

landed as (
    select
        nodes.*,
        batches.extracted_at,
        coalesce(nodes.resource_version, cast(nodes.observed_at as {{ dbt.type_string() }})) as version_key
    from nodes
    inner join batches
        on nodes.batch_id = batches.batch_id
),

ranked as (
    select
        *,
        row_number() over (
            partition by cluster, node_uid, resource_name, version_key, is_deleted
            order by observed_at, extracted_at, batch_id, source_line
        ) as sighting_rank
    from landed
),

final as (
    select
        cluster || ':' || node_uid || ':' || resource_name || ':' || version_key
        || case when is_deleted then ':deleted' else '' end as node_resource_observation_id,
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
    from ranked
    where sighting_rank = 1
)

select * from final
