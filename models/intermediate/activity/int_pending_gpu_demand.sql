{#- GPU demand that waited: one row per request per GPU class it could have run on, with its
    waiting interval [pending_from_at, pending_to_at) and its demand in GPU-equivalents.

    - Slurm: a job asking for GPUs waits from eligible_at (dependencies met, begin time
      reached) until it started, or ended without starting (cancelled), or until the
      extraction while still PENDING. Its class is the class of the node it ran on; a job that
      never ran takes the class its gpu type names, else the class(es) its partition's jobs
      ran on. Demand: req_gpu_count x the allocation's capacity fraction (MIG: compute slices
      / 7 when it never ran).
    - Kubernetes: a pod's GPU request waits from its creation until it was scheduled (else
      started, deleted, gone from a re-list, finished, or the cluster's latest observation).
      Its class is its node's once it ran; a pod that never ran takes the classes of the
      cluster's nodes that offer its resource. Demand: the allocation's GPU-equivalents once it
      ran, else the request's devices x the resource's fraction on the candidate nodes.
    Demand with several candidate classes is split evenly among them (never counted twice).

    One row per request, class and period its wait overlaps (int_periods): the whole wait in
    pending_from_at / pending_to_at, its part in the period in period_from_at / period_to_at
    (a wait outside every period the warehouse reports on has no row). Built by period
    (gpuledger.by_period_config): a build computes the requests waiting in the periods it
    computes (gpuledger.live_period) and keeps the frozen periods' rows; a request's rows
    change only with batches whose evidence spans its wait, which touch each period it
    overlaps. -#}
{{ config(**gpuledger.by_period_config()) }}
with

jobs as (
    select * from {{ ref('stg_slurm__jobs') }}
),

pending_pods as (
    select * from {{ ref('stg_kubernetes__pending_requests') }}
),

pods as (
    select * from {{ ref('stg_kubernetes__pod_allocations') }}
),

kube_nodes as (
    select * from {{ ref('stg_kubernetes__nodes') }}
),

allocations as (
    select * from {{ ref('int_allocations') }}
),

nodes as (
    select * from {{ ref('int_nodes') }}
),

periods as (
    select * from {{ ref('int_periods') }}
    where {{ gpuledger.live_period('period') }}
),

weights as (
    select * from {{ ref('stg_policy__partition_weights') }}
    where sharing_mode = 'mig'
),

node_classes as (
    select distinct gpu_class from nodes
),

partition_classes as (
    select distinct
        jobs.cluster_id,
        jobs.partition_name,
        nodes.gpu_class
    from jobs
    inner join nodes
        on jobs.first_node = nodes.node_name
    where jobs.started_at is not null
),

all_waiting_jobs as (
    select
        jobs.component_id as pending_request_id,
        jobs.cluster_id,
        jobs.partition_name,
        jobs.gpu_type,
        jobs.eligible_at as pending_from_at,
        coalesce(jobs.started_at, jobs.ended_at, jobs.extracted_at) as pending_to_at,
        jobs.started_at is null and jobs.ended_at is null as is_still_pending,
        cast(jobs.req_gpu_count as double) * coalesce(
            cast(allocations.capacity_fraction as double),
            case
                when jobs.mig_profile is null then 1.0
                else cast(split_part(jobs.mig_profile, 'g', 1) as double) / 7
            end
        ) as demand_gpu_equivalents,
        ran_on.gpu_class as ran_gpu_class
    from jobs
    left join allocations
        on jobs.component_id = allocations.allocation_id
    left join nodes as ran_on
        on jobs.started_at is not null and jobs.first_node = ran_on.node_name
    where
        jobs.req_gpu_count > 0
        and jobs.eligible_at is not null
        and coalesce(jobs.started_at, jobs.ended_at, jobs.extracted_at) > jobs.eligible_at
),

waiting_jobs as (
    {#- with frozen periods, the waits that overlap a period this run computes (the clipping
        below drops the others anyway) -#}
    select * from all_waiting_jobs
    {{ gpuledger.where_overlaps_live_periods('all_waiting_jobs', 'pending_from_at', 'pending_to_at') }}
),

job_classes as (
    select
        waiting_jobs.pending_request_id,
        coalesce(
            waiting_jobs.ran_gpu_class,
            typed.gpu_class,
            partition_classes.gpu_class,
            'unknown'
        ) as gpu_class
    from waiting_jobs
    left join node_classes as typed
        on waiting_jobs.ran_gpu_class is null and waiting_jobs.gpu_type = typed.gpu_class
    left join partition_classes
        on
            waiting_jobs.ran_gpu_class is null
            and typed.gpu_class is null
            and waiting_jobs.cluster_id = partition_classes.cluster_id
            and waiting_jobs.partition_name = partition_classes.partition_name
),

slurm_demand as (
    select
        'slurm' as source_system,
        waiting_jobs.pending_request_id,
        job_classes.gpu_class,
        waiting_jobs.pending_from_at,
        waiting_jobs.pending_to_at,
        waiting_jobs.is_still_pending,
        waiting_jobs.demand_gpu_equivalents / count(*) over (
            partition by waiting_jobs.pending_request_id
        ) as demand_gpu_equivalents
    from waiting_jobs
    inner join job_classes
        on waiting_jobs.pending_request_id = job_classes.pending_request_id
),

latest_kube_nodes as (
    select
        cluster_id,
        node_name,
        resource_name,
        timeslice_replicas,
        capacity_count
    from (
        select
            *,
            row_number() over (
                partition by cluster_id, node_name, resource_name order by observed_at desc
            ) as observation_rank
        from kube_nodes
    ) as ranked
    where observation_rank = 1 and not is_deleted and capacity_count > 0
),

all_waiting_pods as (
    select
        pending_pods.pod_allocation_id as pending_request_id,
        pending_pods.cluster_id,
        pending_pods.resource_name,
        pending_pods.sharing_mode,
        pending_pods.mig_profile,
        pending_pods.device_count,
        coalesce(pending_pods.created_at, pending_pods.first_pending_observed_at)
            as pending_from_at,
        coalesce(
            pods.scheduled_at,
            pods.started_at,
            pods.deleted_at,
            pods.gone_by_at,
            pods.finished_at,
            pods.observed_through_at,
            pending_pods.last_pending_observed_at
        ) as pending_to_at,
        coalesce(
            pods.scheduled_at, pods.started_at, pods.deleted_at, pods.gone_by_at, pods.finished_at
        ) is null as is_still_pending,
        allocations.gpu_class as ran_gpu_class,
        allocations.gpu_equivalents as ran_gpu_equivalents
    from pending_pods
    left join pods
        on pending_pods.pod_allocation_id = pods.pod_allocation_id
    left join allocations
        on pending_pods.pod_allocation_id = allocations.allocation_id
),

waiting_pods as (
    {#- with frozen periods, the waits that overlap a period this run computes, as the jobs' -#}
    select * from all_waiting_pods
    {{ gpuledger.where_overlaps_live_periods('all_waiting_pods', 'pending_from_at', 'pending_to_at') }}
),

pod_candidates as (
    {#- a pod that ran: its allocation; one that never ran: every class offering its resource -#}
    select
        pending_request_id,
        ran_gpu_class as gpu_class,
        cast(ran_gpu_equivalents as double) as demand_gpu_equivalents
    from waiting_pods
    where ran_gpu_class is not null
    union all
    select
        waiting_pods.pending_request_id,
        nodes.gpu_class,
        cast(avg(
            waiting_pods.device_count * case
                when waiting_pods.sharing_mode = 'mig'
                    then coalesce(
                        cast(weights.capacity_fraction as double),
                        cast(split_part(waiting_pods.mig_profile, 'g', 1) as double) / 7
                    )
                when waiting_pods.sharing_mode = 'timeslice'
                    then 1.0 / greatest(coalesce(latest_kube_nodes.timeslice_replicas, 1), 1)
                else 1.0
            end
        ) as double) as demand_gpu_equivalents
    from waiting_pods
    inner join latest_kube_nodes
        on
            waiting_pods.cluster_id = latest_kube_nodes.cluster_id
            and waiting_pods.resource_name = latest_kube_nodes.resource_name
    inner join nodes
        on latest_kube_nodes.node_name = nodes.node_name
    left join weights
        on nodes.gpu_model = weights.gpu_model and waiting_pods.mig_profile = weights.profile
    where waiting_pods.ran_gpu_class is null
    group by waiting_pods.pending_request_id, nodes.gpu_class
),

kubernetes_demand as (
    select
        'kubernetes' as source_system,
        waiting_pods.pending_request_id,
        coalesce(pod_candidates.gpu_class, 'unknown') as gpu_class,
        waiting_pods.pending_from_at,
        waiting_pods.pending_to_at,
        waiting_pods.is_still_pending,
        coalesce(pod_candidates.demand_gpu_equivalents, cast(waiting_pods.device_count as double))
        / count(*) over (partition by waiting_pods.pending_request_id) as demand_gpu_equivalents
    from waiting_pods
    left join pod_candidates
        on waiting_pods.pending_request_id = pod_candidates.pending_request_id
    where waiting_pods.pending_to_at > waiting_pods.pending_from_at
),

demand as (
    select * from slurm_demand
    union all
    select * from kubernetes_demand
),

final as (
    {#- each wait clipped to each period it overlaps -#}
    {{ gpuledger.clipped_to_periods(
        'demand', 'pending_from_at', 'pending_to_at',
        [
            'source_system', 'pending_request_id', 'gpu_class', 'pending_from_at',
            'pending_to_at', 'is_still_pending', 'demand_gpu_equivalents'
        ],
        from_as='period_from_at', to_as='period_to_at'
    ) }}
)

select * from final
