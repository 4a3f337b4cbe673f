{{ config(severity='warn') }}
{#- A successful request to an endpoint that has weights in the policy finished while some
    weight version of it was valid; otherwise its units are left out of the endpoint's
    shares. Warns with the endpoint, period and count of unweighted requests. -#}
with

requests as (
    select * from {{ ref('int_gateway_requests') }}
),

weights as (
    select * from {{ ref('stg_policy__endpoint_weights') }}
),

weighted_endpoints as (
    select distinct endpoint_id
    from weights
),

covered as (
    select distinct requests.request_id
    from requests
    inner join weights
        on
            requests.endpoint_id = weights.endpoint_id
            and requests.finished_at >= weights.valid_from_at
            and requests.finished_at < {{ gpuledger.open_end('weights.valid_to_at') }}
),

final as (
    select
        requests.period,
        requests.endpoint_id,
        count(*) as unweighted_requests
    from requests
    inner join weighted_endpoints
        on requests.endpoint_id = weighted_endpoints.endpoint_id
    left join covered
        on requests.request_id = covered.request_id
    where requests.is_success and covered.request_id is null
    group by requests.period, requests.endpoint_id
)

select * from final
