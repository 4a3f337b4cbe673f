{#- Success events without a workload: one row per successful
    gateway request that no GPU allocation of its endpoint overlapped, from its start to its
    finish. `unserved_reason` says whether the endpoint has no allocation at all
    (endpoint_not_mapped: neither endpoint-owned nor in endpoint_scopes.csv) or none at the
    time (no_allocation_at_the_time: the evidence disagrees). -#}
with

requests as (
    select * from {{ ref('int_gateway_requests') }}
),

endpoint_allocations as (
    select * from {{ ref('int_endpoint_allocations') }}
),

mapped_endpoints as (
    select distinct endpoint_id
    from endpoint_allocations
),

served as (
    select distinct requests.request_id
    from requests
    inner join endpoint_allocations
        on
            requests.endpoint_id = endpoint_allocations.endpoint_id
            and requests.finished_at > endpoint_allocations.served_from_at
            and requests.started_at < endpoint_allocations.served_to_at
    where requests.is_success
),

final as (
    select
        requests.request_id,
        requests.period,
        requests.tenant_id,
        requests.endpoint_id,
        requests.model_name,
        requests.started_at,
        requests.finished_at,
        case
            when mapped_endpoints.endpoint_id is null then 'endpoint_not_mapped'
            else 'no_allocation_at_the_time'
        end as unserved_reason
    from requests
    left join served
        on requests.request_id = served.request_id
    left join mapped_endpoints
        on requests.endpoint_id = mapped_endpoints.endpoint_id
    where requests.is_success and served.request_id is null
)

select * from final
