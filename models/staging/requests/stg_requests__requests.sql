{#- One row per gateway request: the latest landed report of each request_id (a re-exported
    log may repeat or correct a request). Times UTC.

    Kept per request (by_key): a daily run recomputes the requests its new batches report,
    from every report of them, and keeps the others' rows (macros/keyed.sql). -#}
{{ config(**gpuledger.by_key_config(['request_id'])) }}
with

requests as (
    select * from {{ source('requests', 'gateway_requests') }}
    where {{ gpuledger.keyed(source('requests', 'gateway_requests'), ['request_id']) }}
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
