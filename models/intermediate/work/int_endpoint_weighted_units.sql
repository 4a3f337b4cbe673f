{#- A shared endpoint's productive units per period, tenant, weight version and unit: the
    successful requests (and their input and output tokens) each weighted by the endpoint's
    weight version valid when the request finished, so a version change mid-period weighs
    each request by its own version. A request no version covers is not weighted (the
    singular test assert_endpoint_requests_are_weighted warns). -#}
with

requests as (
    select * from {{ ref('int_gateway_requests') }}
),

weights as (
    select * from {{ ref('stg_policy__endpoint_weights') }}
),

weighted as (
    select
        requests.period,
        requests.endpoint_id,
        requests.tenant_id,
        weights.weight_version,
        weights.unit,
        weights.weight,
        case weights.unit
            when 'requests' then 1
            when 'input_tokens' then requests.input_tokens
            when 'output_tokens' then requests.output_tokens
        end as units
    from requests
    inner join weights
        on
            requests.endpoint_id = weights.endpoint_id
            and requests.finished_at >= weights.valid_from_at
            and requests.finished_at < {{ gpuledger.open_end('weights.valid_to_at') }}
    where requests.is_success
),

final as (
    select
        period,
        endpoint_id,
        tenant_id,
        weight_version,
        unit,
        weight,
        cast(sum(units) as bigint) as units,
        cast(sum(units * weight) as decimal(38, 6)) as weighted_units
    from weighted
    group by period, endpoint_id, tenant_id, weight_version, unit, weight
)

select * from final
