{#- One row per gateway request: the latest landed report of each request_id (a re-exported
    log may repeat or correct a request). Times UTC. -#}
with

requests as (
    select * from {{ source('requests', 'gateway_requests') }}
),

batches as (
    select * from {{ ref('stg_landing__batches') }}
),

ranked as (
    select
        requests.*,
        batches.extracted_at,
        row_number() over (
            partition by requests.request_id
            order by batches.extracted_at desc, requests.batch_id desc, requests.source_line desc
        ) as report_rank
    from requests
    inner join batches
        on requests.batch_id = batches.batch_id
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
    from ranked
    where report_rank = 1
)

select * from final
