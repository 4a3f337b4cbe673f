{#- One row per gateway request: the latest landed report of each request_id (a re-exported
    log may repeat or correct a request). Times UTC. -#}
with

requests as (
    select * from {{ source('requests', 'gateway_requests') }}
),

latest as (
    {{ gpuledger.latest_landed('requests', key=['request_id']) }}
),

final as (
    select
        request_id,
        tenant_id,
        endpoint as endpoint_id,
        model as model_name,
        input_tokens,
        output_tokens,
        outcome,
        outcome = 'success' as is_success,
        started_at,
        finished_at,
        {{ seconds_between('started_at', 'finished_at') }} as duration_seconds,
        batch_id,
        extracted_at
    from latest
)

select * from final
