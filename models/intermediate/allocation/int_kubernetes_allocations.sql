{#- One allocation per started pod container GPU resource: [started_at, finished_at), an
    open one provisionally ending at the last observation. The capacity fraction comes from
    the sharing mode: a whole GPU is 1 (high confidence); a MIG instance is its profile's
    approved weight, else compute slices / 7 (high); a time-sliced replica is 1 / the declared
    replicas of the pod or of its node's time-slicing config (modeled). A plain
    `nvidia.com/gpu` on a node that time-slices it is a replica too. A replica whose count
    nobody declared holds a whole GPU provisionally and is flagged (partition_weight_coverage
    blocks the close). Owned by namespace (by name, through the ownership timeline). The pod's
    UID and namespace/pod key (how NVML cgroups and DCGM series name it) come along for
    telemetry. -#}
with

pods as (
    select * from {{ ref('stg_kubernetes__pod_allocations') }}
),

kube_nodes as (
    select * from {{ ref('stg_kubernetes__nodes') }}
),

nodes as (
    select * from {{ ref('int_nodes') }}
),

weights as (
    select * from {{ ref('stg_policy__partition_weights') }}
),

node_sharing as (
    {#- each node's latest declared sharing per GPU resource -#}
    select
        cluster_id,
        node_name,
        resource_name,
        sharing_strategy,
        timeslice_replicas
    from (
        select
            *,
            row_number() over (
                partition by cluster_id, node_name, resource_name order by observed_at desc
            ) as observation_rank
        from kube_nodes
    ) as ranked
    where observation_rank = 1
),

held as (
    select
        pods.*,
        case
            when pods.sharing_mode = 'whole' and node_sharing.sharing_strategy = 'time-slicing'
                then 'timeslice'
            else pods.sharing_mode
        end as effective_sharing_mode,
        coalesce(pods.timeslice_replicas, node_sharing.timeslice_replicas) as replicas
    from pods
    left join node_sharing
        on
            pods.cluster_id = node_sharing.cluster_id
            and pods.node_name = node_sharing.node_name
            and pods.resource_name = node_sharing.resource_name
    where pods.has_started and pods.device_count > 0
),

final as (
    select
        held.pod_allocation_id as allocation_id,
        held.workload_id,
        'kubernetes' as source_system,
        'k8s_namespace' as scope_type,
        held.namespace_name as scope_key,
        held.node_name,
        nodes.gpu_model,
        coalesce(nodes.gpu_class, 'unknown') as gpu_class,
        held.effective_sharing_mode as sharing_mode,
        case
            when held.effective_sharing_mode = 'mig' then held.mig_profile
            when held.effective_sharing_mode = 'timeslice'
                then 'timeslice/' || coalesce(cast(held.replicas as {{ dbt.type_string() }}), '?')
        end as profile,
        held.device_count,
        cast(case
            when held.effective_sharing_mode = 'mig'
                then coalesce(
                    weights.capacity_fraction,
                    cast(split_part(held.mig_profile, 'g', 1) as decimal(18, 6)) / 7
                )
            when held.effective_sharing_mode = 'timeslice' and held.replicas > 0
                then 1.0 / held.replicas
            else 1
        end as decimal(18, 6)) as capacity_fraction,
        held.effective_sharing_mode = 'timeslice' and coalesce(held.replicas, 0) <= 0
            as is_missing_weight,
        held.pod_uid,
        held.namespace_name || '/' || held.pod_name as pod_key,
        held.started_at as allocation_start_at,
        coalesce(held.finished_at, held.observed_through_at) as allocation_end_at,
        held.is_open,
        nodes.node_name is null as is_orphan,
        case when held.effective_sharing_mode = 'timeslice' then 'modeled' else 'high' end
            as confidence
    from held
    left join nodes
        on held.node_name = nodes.node_name
    left join weights
        on
            weights.sharing_mode = 'mig'
            and nodes.gpu_model = weights.gpu_model
            and held.mig_profile = weights.profile
    where coalesce(held.finished_at, held.observed_through_at) > held.started_at
)

select
    *,
    cast(device_count * capacity_fraction as decimal(18, 6)) as gpu_equivalents
from final
