{#- One row per GPU request of a pod seen Pending (cluster, pod UID, container, resource):
    when it was created, first and last seen pending, and the scheduler's latest word.
    The wait ends when the pod is scheduled or deleted: `scheduled_at`, `deleted_at` and
    `gone_by_at` of the same `pod_allocation_id` in stg_kubernetes__pod_allocations. -#}
with

pending as (
    select * from {{ source('kubernetes', 'kubernetes_pending_requests') }}
),

batches as (
    select * from {{ ref('stg_landing__batches') }}
),

landed as (
    select
        pending.*,
        batches.extracted_at
    from pending
    inner join batches
        on pending.batch_id = batches.batch_id
),

ranked as (
    select
        *,
        min(observed_at) over (
            partition by cluster, pod_uid, container_name, resource_name
        ) as first_pending_observed_at,
        max(observed_at) over (
            partition by cluster, pod_uid, container_name, resource_name
        ) as last_pending_observed_at,
        row_number() over (
            partition by cluster, pod_uid, container_name, resource_name
            order by is_deleted desc, observed_at desc, extracted_at desc, batch_id desc, source_line desc
        ) as observation_rank
    from landed
),

final as (
    select
        cluster || ':' || pod_uid || ':' || container_name || ':' || resource_name
            as pod_allocation_id,
        cluster as cluster_id,
        namespace as namespace_name,
        pod_uid,
        pod_name,
        container_name,
        container_type,
        resource_name,
        quantity as device_count,
        sharing_mode,
        mig_profile,
        creation_at as created_at,
        first_pending_observed_at,
        last_pending_observed_at,
        node_name is not null as is_bound_to_node,
        node_name,
        unschedulable_reason,
        unschedulable_message,
        is_deleted as is_deleted_while_pending,
        batch_id,
        extracted_at,
        source_line
    from ranked
    where observation_rank = 1
)

select * from final
