{#- One row per gateway request, in the period it finished (a model server counts a request
    when it finishes, so both sides of the reconciliation date it alike). The caller's
    tenant is the policy tenant of that id; an id the policy does not know goes to the
    `__unattributed__` suspense tenant (gateway_tenant_id keeps what the gateway logged). A
    rejected request never reached a model server.

    Kept per request (by_key): a daily run recomputes the requests whose staging row a new
    batch now holds, and keeps the others' rows; a change of the policy makes it whole
    (macros/keyed.sql, gpuledger.core.incremental.keyed_fingerprint). -#}
{{ config(**gpuledger.by_key_config(['request_id'])) }}
with

requests as (
    select * from {{ ref('stg_requests__requests') }}
    where {{ gpuledger.keyed(ref('stg_requests__requests'), ['request_id']) }}
),

tenants as (
    select * from {{ ref('stg_policy__tenants') }}
),

final as (
    select
        requests.request_id,
        requests.tenant_id as gateway_tenant_id,
        coalesce(tenants.tenant_id, '__unattributed__') as tenant_id,
        requests.endpoint_id,
        requests.model_name,
        requests.outcome,
        requests.is_success,
        requests.outcome != 'rejected' as reaches_server,
        coalesce(requests.input_tokens, 0) as input_tokens,
        coalesce(requests.output_tokens, 0) as output_tokens,
        requests.started_at,
        coalesce(requests.finished_at, requests.started_at) as finished_at,
        {{ gpuledger.period_of('coalesce(requests.finished_at, requests.started_at)') }} as period
    from requests
    left join tenants
        on requests.tenant_id = tenants.tenant_id
)

select * from final
