{#- One row per cluster: its latest observation, of any pod (a pod's last observation is the
    latest of all its observations) or of a complete list of pods. An open GPU request is
    known to run at least until then (stg_kubernetes__pod_allocations). -#}
with

kept as (
    select * from {{ ref('stg_kubernetes__pod_allocations_kept') }}
),

snapshots as (
    select * from {{ source('kubernetes', 'kubernetes_list_snapshots') }}
),

pod_snapshots as (
    {{ gpuledger.landed_records('snapshots', where="resource = 'pods'") }}
),

cluster_observations as (
    select
        cluster_id,
        last_observed_at as observed_at
    from kept
    union all
    select
        cluster as cluster_id,
        observed_at
    from pod_snapshots
),

final as (
    select
        cluster_id,
        max(observed_at) as observed_through_at
    from cluster_observations
    group by cluster_id
)

select * from final
