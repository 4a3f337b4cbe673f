{#- One row per GPU request of a pod seen Pending (cluster, pod UID, container, resource):
    when it was created, first and last seen pending, and the scheduler's latest word.
    The wait ends when the pod is scheduled or deleted: `scheduled_at`, `deleted_at` and
    `gone_by_at` of the same `pod_allocation_id` in stg_kubernetes__pod_allocations.

    Kept per request (by_key): a daily run recomputes the requests its new batches saw
    pending, from every observation of them, and keeps the others' rows (macros/keyed.sql). -#}
{{ config(**gpuledger.by_key_config(['pod_allocation_id'])) }}
with

pending as (
    select * from {{ source('kubernetes', 'kubernetes_pending_requests') }}
    where {{ gpuledger.keyed(
        source('kubernetes', 'kubernetes_pending_requests'),
        ['cluster', 'pod_uid', 'container_name', 'resource_name']
    ) }}
),

latest as (
    {{ gpuledger.latest_landed(
        'pending',
        key=['cluster', 'pod_uid', 'container_name', 'resource_name'],
        prefer=['is_deleted desc', 'observed_at desc'],
        across_versions={
            'first_pending_observed_at': 'min(observed_at)',
            'last_pending_observed_at': 'max(observed_at)'
        }
    ) }}
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
    from latest
)

select * from final
