{#- One row per namespace UID and label state: consecutive observations with the same labels
    collapse into one row, from the first observation of those labels (`observed_at`) to the
    last (`last_observed_at`); `superseded_at` is the first observation of the next labels.
    Namespace names can be reused after deletion, so the UID is the key. The deletion time
    is the namespace's latest known one (deletionTimestamp, or the DELETED event); a
    namespace a later complete list no longer had is gone by that list's time. -#}
with

namespaces as (
    select * from {{ source('kubernetes', 'kubernetes_namespaces') }}
),

snapshots as (
    select * from {{ source('kubernetes', 'kubernetes_list_snapshots') }}
),

landed as (
    {{ gpuledger.landed_records('namespaces') }}
),

namespace_snapshots as (
    {{ gpuledger.landed_records('snapshots', where="resource = 'namespaces'") }}
),

ordered as (
    select
        *,
        lag(labels) over (
            partition by cluster, namespace_uid
            order by observed_at, extracted_at, batch_id, source_line
        ) as previous_labels
    from landed
),

marked as (
    select
        *,
        case
            when previous_labels is null or previous_labels <> labels then 1 else 0
        end as is_label_change
    from ordered
),

numbered as (
    select
        *,
        sum(is_label_change) over (
            partition by cluster, namespace_uid
            order by observed_at, extracted_at, batch_id, source_line
            rows between unbounded preceding and current row
        ) as label_state
    from marked
),

windowed as (
    select
        *,
        min(observed_at) over (
            partition by cluster, namespace_uid, label_state
        ) as state_observed_at,
        max(observed_at) over (
            partition by cluster, namespace_uid, label_state
        ) as state_last_observed_at,
        row_number() over (
            partition by cluster, namespace_uid, label_state
            order by observed_at, extracted_at, batch_id, source_line
        ) as state_row
    from numbered
),

namespace_ends as (
    select
        cluster,
        namespace_uid,
        max(deletion_at) as deletion_at,
        max(case when is_deleted then 1 else 0 end) = 1 as is_deleted,
        max(observed_at) as last_observed_at
    from landed
    group by
        cluster,
        namespace_uid
),

gone as (
    select
        namespace_ends.cluster,
        namespace_ends.namespace_uid,
        min(namespace_snapshots.observed_at) as gone_by_at
    from namespace_ends
    inner join namespace_snapshots
        on
            namespace_ends.cluster = namespace_snapshots.cluster
            and namespace_ends.last_observed_at < namespace_snapshots.observed_at
    where not namespace_ends.is_deleted
    group by
        namespace_ends.cluster,
        namespace_ends.namespace_uid
),

states as (
    select
        windowed.*,
        lead(windowed.state_observed_at) over (
            partition by windowed.cluster, windowed.namespace_uid
            order by windowed.label_state
        ) as superseded_at
    from windowed
    where windowed.state_row = 1
),

final as (
    select
        states.cluster || ':' || states.namespace_uid || ':' || cast(states.label_state as {{ dbt.type_string() }})
            as namespace_label_state_id,
        states.cluster as cluster_id,
        states.namespace_uid,
        states.name as namespace_name,
        states.labels as labels_json,
        states.tenant_label_key,
        states.tenant_label_value,
        states.project_label_key,
        states.project_label_value,
        states.label_state as label_state_number,
        states.state_observed_at as observed_at,
        states.state_last_observed_at as last_observed_at,
        states.superseded_at,
        states.creation_at as created_at,
        namespace_ends.deletion_at as deleted_at,
        namespace_ends.is_deleted,
        gone.gone_by_at,
        states.batch_id,
        states.extracted_at,
        states.source_line
    from states
    inner join namespace_ends
        on
            states.cluster = namespace_ends.cluster
            and states.namespace_uid = namespace_ends.namespace_uid
    left join gone
        on
            states.cluster = gone.cluster
            and states.namespace_uid = gone.namespace_uid
)

select * from final
