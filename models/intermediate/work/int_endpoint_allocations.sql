{#- The allocated GPU-hours of shared endpoints: one row per allocation segment (or the part
    of it) that served an endpoint. A segment is an endpoint's when its scope is the endpoint
    itself (scope_type 'endpoint', owned through ownership.csv), or when policy
    endpoint_scopes.csv maps its scope (and workload name prefix: the pod name, the job
    name) to the endpoint; a mapping valid for part of a segment takes that part's hours.
    The host tenant is the segment's owner, who was charged for it. -#}
with

segments as (
    select * from {{ ref('int_allocation_segments') }}
),

endpoint_scopes as (
    select * from {{ ref('stg_policy__endpoint_scopes') }}
),

outcomes as (
    select * from {{ ref('int_workload_outcomes') }}
),

owned as (
    select
        segments.segment_id,
        segments.scope_key as endpoint_id,
        'endpoint_ownership' as mapped_by,
        segments.segment_start_at as served_from_at,
        segments.segment_end_at as served_to_at
    from segments
    where segments.scope_type = 'endpoint'
),

mapped as (
    select
        segments.segment_id,
        endpoint_scopes.endpoint_id,
        'endpoint_scopes' as mapped_by,
        greatest(segments.segment_start_at, endpoint_scopes.valid_from_at) as served_from_at,
        least(segments.segment_end_at, {{ gpuledger.open_end('endpoint_scopes.valid_to_at') }})
            as served_to_at
    from segments
    inner join endpoint_scopes
        on
            segments.scope_type = endpoint_scopes.scope_type
            and segments.scope_key = endpoint_scopes.scope_key
            and segments.segment_start_at < {{ gpuledger.open_end('endpoint_scopes.valid_to_at') }}
            and segments.segment_end_at > endpoint_scopes.valid_from_at
    left join outcomes
        on segments.workload_id = outcomes.workload_id
    where
        endpoint_scopes.workload_prefix = ''
        or substr(coalesce(outcomes.workload_name, ''), 1, length(endpoint_scopes.workload_prefix))
        = endpoint_scopes.workload_prefix
),

served as (
    select * from owned
    union all
    select * from mapped
),

final as (
    select
        served.segment_id,
        served.endpoint_id,
        served.mapped_by,
        segments.period,
        segments.tenant_id as host_tenant_id,
        segments.workload_id,
        segments.gpu_class,
        segments.confidence,
        segments.segment_start_at,
        served.served_from_at,
        served.served_to_at,
        segments.gpu_equivalents
        * {{ gpuledger.hours_between('served.served_from_at', 'served.served_to_at') }}
            as gpu_hours
    from served
    inner join segments
        on served.segment_id = segments.segment_id
)

select * from final
