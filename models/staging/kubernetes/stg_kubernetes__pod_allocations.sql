{#- One row per pod container GPU request (cluster, pod UID, container, resource): its latest
    word and interval (stg_kubernetes__pod_allocations_kept, kept per request), and how long
    an open request is known to run at least: its cluster's latest observation
    (`observed_through_at`, stg_kubernetes__observed_through). A view: the latest
    observation moves with every batch, for every request of the cluster, so it is joined
    when the view is read, and the requests' rows are kept. It reads only the warehouse's
    tables (not the landed files), so it can be read from anywhere. -#}
{{ config(materialized='view') }}
with

kept as (
    select * from {{ ref('stg_kubernetes__pod_allocations_kept') }}
),

observed_through as (
    select * from {{ ref('stg_kubernetes__observed_through') }}
),

final as (
    select
        kept.pod_allocation_id,
        kept.workload_id,
        kept.cluster_id,
        kept.pod_uid,
        kept.pod_name,
        kept.namespace_name,
        kept.node_name,
        kept.pod_phase,
        kept.pod_reason,
        kept.container_name,
        kept.container_type,
        kept.container_id,
        kept.resource_name,
        kept.device_count,
        kept.sharing_mode,
        kept.mig_profile,
        kept.timeslice_replicas,
        kept.started_at,
        kept.finished_at,
        kept.finished_at_source,
        kept.has_started,
        kept.is_open,
        kept.first_observed_at,
        kept.last_observed_at,
        observed_through.observed_through_at,
        kept.gone_by_at,
        kept.created_at,
        kept.scheduled_at,
        kept.pod_started_at,
        kept.deleted_at,
        kept.is_deleted,
        kept.is_terminal,
        kept.termination_reason,
        kept.exit_code,
        kept.restart_count,
        kept.owner_kind,
        kept.owner_name,
        kept.owner_uid,
        kept.resource_version,
        kept.batch_id,
        kept.extracted_at,
        kept.source_line
    from kept
    inner join observed_through
        on kept.cluster_id = observed_through.cluster_id
)

select * from final
