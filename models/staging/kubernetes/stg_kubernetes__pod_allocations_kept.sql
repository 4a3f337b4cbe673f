{#- One row per pod container GPU request: (cluster, pod UID, container, resource). Pods are
    observed many times (lists, watch events, re-lists after 410 Gone, replays after a
    restart); a deleted or terminated observation wins, then the latest. The start is the
    earliest container start any observation showed (a crash-looping container's status
    only keeps its last two runs). The end is the winning observation's finish; else, for
    a pod a later complete list no longer had (deleted while the watch had expired), that
    list's time (an upper bound; `last_observed_at` is the lower one); else, for a pod
    seen deleted or terminated without a finish time, its last observation. A started
    request without any end evidence stays open (stg_kubernetes__pod_allocations adds how
    long it is known to run: its cluster's latest observation).

    Kept per request (by_key, macros/keyed.sql): a daily run recomputes the requests its new
    batches observe, and those a new complete list of pods may end (a pod of its cluster last
    observed before the list, not yet known gone by an earlier one), from every observation
    of them, and keeps the others' rows. -#}
{{ config(**gpuledger.by_key_config(['pod_allocation_id'])) }}
{%- set listed_gone -%}
    select
        kept.cluster_id,
        kept.pod_uid,
        kept.container_name,
        kept.resource_name
    from {{ this }} as kept
    inner join {{ source('kubernetes', 'kubernetes_list_snapshots') }} as lists
        on
            kept.cluster_id = lists.cluster
            and kept.last_observed_at < lists.observed_at
    where
        lists.resource = 'pods'
        and lists.batch_id in (__keyed_batches__)
        and (kept.gone_by_at is null or lists.observed_at < kept.gone_by_at)
{%- endset %}
with

allocations as (
    select * from {{ source('kubernetes', 'kubernetes_pod_allocations') }}
    where {{ gpuledger.keyed(
        source('kubernetes', 'kubernetes_pod_allocations'),
        ['cluster', 'pod_uid', 'container_name', 'resource_name'],
        also=listed_gone
    ) }}
),

snapshots as (
    select * from {{ source('kubernetes', 'kubernetes_list_snapshots') }}
),

observations as (
    select
        *,
        coalesce(phase in ('Succeeded', 'Failed'), false) as is_terminal
    from allocations
),

latest as (
    {{ gpuledger.latest_landed(
        'observations',
        key=['cluster', 'pod_uid', 'container_name', 'resource_name'],
        prefer=['is_deleted desc', 'is_terminal desc', 'observed_at desc'],
        across_versions={
            'first_started_at': 'min(started_at)',
            'first_observed_at': 'min(observed_at)',
            'last_observed_at': 'max(observed_at)'
        }
    ) }}
),

pod_snapshots as (
    {{ gpuledger.landed_records('snapshots', where="resource = 'pods'") }}
),

gone as (
    select
        latest.cluster,
        latest.pod_uid,
        latest.container_name,
        latest.resource_name,
        min(pod_snapshots.observed_at) as gone_by_at
    from latest
    inner join pod_snapshots
        on
            latest.cluster = pod_snapshots.cluster
            and latest.last_observed_at < pod_snapshots.observed_at
    group by
        latest.cluster,
        latest.pod_uid,
        latest.container_name,
        latest.resource_name
),

ended as (
    select
        latest.*,
        gone.gone_by_at,
        case
            when latest.first_started_at is null then null
            when latest.finished_at is not null then latest.finished_at
            when gone.gone_by_at is not null then gone.gone_by_at
            when latest.is_deleted or latest.is_terminal then latest.last_observed_at
        end as interval_end_at,
        case
            when latest.first_started_at is null then null
            when latest.finished_at is not null then latest.finished_at_source
            when gone.gone_by_at is not null then 'absent_from_relist'
            when latest.is_deleted or latest.is_terminal then 'last_observed'
        end as interval_end_source
    from latest
    left join gone
        on
            latest.cluster = gone.cluster
            and latest.pod_uid = gone.pod_uid
            and latest.container_name = gone.container_name
            and latest.resource_name = gone.resource_name
),

final as (
    select
        cluster || ':' || pod_uid || ':' || container_name || ':' || resource_name
            as pod_allocation_id,
        'k8s:' || cluster || ':' || pod_uid as workload_id,
        cluster as cluster_id,
        pod_uid,
        pod_name,
        namespace as namespace_name,
        node_name,
        phase as pod_phase,
        pod_reason,
        container_name,
        container_type,
        container_id,
        resource_name,
        quantity as device_count,
        sharing_mode,
        mig_profile,
        timeslice_replicas,
        first_started_at as started_at,
        interval_end_at as finished_at,
        interval_end_source as finished_at_source,
        first_started_at is not null as has_started,
        first_started_at is not null and interval_end_at is null as is_open,
        first_observed_at,
        last_observed_at,
        gone_by_at,
        creation_at as created_at,
        scheduled_at,
        pod_started_at,
        deletion_at as deleted_at,
        is_deleted,
        is_terminal,
        termination_reason,
        exit_code,
        restart_count,
        owner_kind,
        owner_name,
        owner_uid,
        resource_version,
        batch_id,
        extracted_at,
        source_line
    from ended
)

select * from final
