{#- The gateway's request log against the model servers' counters, per period, served model
    and measure (request and token evidence reconciled with the service):
    - requests: gateway requests that reached a server (not rejected) vs the server's
      finished requests (vLLM request_success of every reason, Triton success + failure);
    - successful_requests: gateway outcome success vs vLLM stop/length, Triton success;
    - input_tokens: prompt tokens of the requests that reached a server vs prompt counters;
    - output_tokens: output tokens of every request vs generation counters.
    Both sides are dated by when a request finished (a counter increase belongs to the hour
    of the poll after it). Server counters carry the model, not the endpoint: a model's
    counters reconcile the endpoints the gateway routed that model to (endpoint_id lists
    them). difference = gateway - server; ratio = gateway / server; status 'mismatch' when
    |difference| exceeds productive_work_tolerance_pct (default 2) percent of the server
    value (or the server counted 0), 'no_server_evidence' when no counter covers the model
    or measure (a server that does not count tokens), 'no_gateway_evidence' when no gateway
    request named the model. -#}
with

requests as (
    select * from {{ ref('int_gateway_requests') }}
),

server_usage as (
    select * from {{ ref('stg_prometheus__model_server_usage') }}
),

settings as (
    select * from {{ ref('stg_policy__settings') }}
),

tolerance as (
    select
        cast({{ gpuledger.policy_setting('productive_work_tolerance_pct', 2) }} as decimal(18, 6))
            as tolerance_pct
    from settings
),

gateway as (
    select
        period,
        model_name,
        -- noqa: disable=LT02
        {% call gpuledger.string_agg("', '", order_by='endpoint_id', distinct=true) -%}
            endpoint_id
        {%- endcall %} as endpoint_id,
        -- noqa: enable=LT02
        sum(case when reaches_server then 1 else 0 end) as requests,
        sum(case when is_success then 1 else 0 end) as successful_requests,
        sum(case when reaches_server then input_tokens else 0 end) as input_tokens,
        sum(output_tokens) as output_tokens
    from requests
    group by period, model_name
),

server as (
    select
        {{ gpuledger.period_of('hour_start_at') }} as period,
        model_name,
        sum(request_count) as requests,
        sum(successful_request_count) as successful_requests,
        sum(input_tokens) as input_tokens,
        sum(output_tokens) as output_tokens
    from server_usage
    group by {{ gpuledger.period_of('hour_start_at') }}, model_name
),

paired as (
    select
        coalesce(gateway.period, server.period) as period,
        coalesce(gateway.model_name, server.model_name) as model_name,
        gateway.endpoint_id,
        gateway.period is not null as has_gateway,
        gateway.requests as gateway_requests,
        gateway.successful_requests as gateway_successful_requests,
        gateway.input_tokens as gateway_input_tokens,
        gateway.output_tokens as gateway_output_tokens,
        server.requests as server_requests,
        server.successful_requests as server_successful_requests,
        server.input_tokens as server_input_tokens,
        server.output_tokens as server_output_tokens
    from gateway
    full outer join server
        on gateway.period = server.period and gateway.model_name = server.model_name
),

measures as (
    {%- for measure in ['requests', 'successful_requests', 'input_tokens', 'output_tokens'] %}
    select
        period,
        model_name,
        endpoint_id,
        has_gateway,
        '{{ measure }}' as measure,
        gateway_{{ measure }} as gateway_value,
        server_{{ measure }} as server_value
    from paired
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}
),

compared as (
    select
        measures.*,
        tolerance.tolerance_pct,
        measures.gateway_value - measures.server_value as difference,
        case
            when measures.server_value != 0
                then cast(measures.gateway_value as double) / measures.server_value
        end as ratio,
        case
            when measures.server_value != 0
                then
                    100 * abs(cast(measures.gateway_value - measures.server_value as double))
                    / measures.server_value
        end as difference_pct
    from measures
    cross join tolerance
),

final as (
    select
        {{ surrogate_key(['period', "coalesce(model_name, '')", 'measure']) }}
            as endpoint_reconciliation_id,
        period,
        endpoint_id,
        model_name,
        measure,
        cast(gateway_value as bigint) as gateway_value,
        cast(server_value as bigint) as server_value,
        cast(difference as bigint) as difference,
        cast(round(ratio, 6) as decimal(18, 6)) as ratio,
        cast(round(difference_pct, 6) as decimal(18, 6)) as difference_pct,
        tolerance_pct,
        case
            when not has_gateway then 'no_gateway_evidence'
            when server_value is null then 'no_server_evidence'
            when server_value = 0 and gateway_value != 0 then 'mismatch'
            when difference_pct > tolerance_pct then 'mismatch'
            else 'match'
        end as status,
        coalesce(
            has_gateway
            and server_value is not null
            and (
                (server_value = 0 and gateway_value != 0)
                or difference_pct > tolerance_pct
            ),
            false
        ) as is_mismatch
    from compared
)

select * from final
