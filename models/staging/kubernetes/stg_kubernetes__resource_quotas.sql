{#- One row per namespace, quota, GPU resource and observed quota version: the same version
    seen twice (a list and a watch event, or a replay after a restart) is one observation,
    kept at its first sighting. `hard_quantity` and `used_quantity` count devices of
    `gpu_resource_name` (GPUs, MIG instances or time-slice replicas). -#}
with

quotas as (
    select * from {{ source('kubernetes', 'kubernetes_resource_quotas') }}
),

batches as (
    select * from {{ ref('stg_landing__batches') }}
),

landed as (
    select
        quotas.*,
        batches.extracted_at,
        coalesce(quotas.resource_version, cast(quotas.observed_at as {{ dbt.type_string() }})) as version_key
    from quotas
    inner join batches
        on quotas.batch_id = batches.batch_id
),

ranked as (
    select
        *,
        row_number() over (
            partition by cluster, quota_uid, resource_name, version_key, is_deleted
            order by observed_at, extracted_at, batch_id, source_line
        ) as sighting_rank
    from landed
),

final as (
    select
        cluster || ':' || quota_uid || ':' || resource_name || ':' || version_key
        || case when is_deleted then ':deleted' else '' end as quota_observation_id,
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
    from ranked
    where sighting_rank = 1
)

select * from final
