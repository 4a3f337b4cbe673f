{#- Model-server work per server, model, model version and hour, from cumulative counters.

    Each series (one label set: model, version, reason, vLLM engine, Prometheus instance) is
    differenced in time order: the increase at a point is value - previous value, or the
    value itself when it dropped (a counter reset: the server restarted and counted up from
    zero). A series' first point is its baseline and adds nothing. An increase belongs to
    the hour of the later point. Increases are then summed over engines and instances,
    after the reset correction (summing counters first would hide one engine's reset).

    vLLM: successful requests are request_success with finished_reason stop or length (or
    no reason label); any other reason (abort, error) is a failed request. Input and output
    tokens are prompt_tokens and generation_tokens (V0 and V1 share these names; the
    extractor already maps V0-only names). Triton: request_success and request_failure
    (every reason); durations are cumulative microseconds, converted to seconds here.

    Points name their series (its labels landed once per batch, keyed by a hash of the label
    set); a point landed twice (overlapping chunks or files) counts once: the latest
    extraction. Only the batches with model-server series are read: a fleet's DCGM points
    share the table (566M of a 4,096-GPU month, where its model servers had 230,240), and
    joined on batch and series key DuckDB scanned them all (11.3 s); a filter on the batch
    alone skips the other batches' files. -#}
with

series as (
    select * from {{ source('prometheus', 'prometheus_series') }}
),

model_server_batches as (
    select distinct batch_id
    from series
    where exporter in ('vllm', 'triton')
),

points as (
    select * from {{ source('prometheus', 'prometheus_points') }}
    where batch_id in (select model_server_batches.batch_id from model_server_batches)
),

samples as (
    select
        points.batch_id,
        points.source_line,
        points.sampled_at,
        points.value,
        series.series_key,
        series.exporter,
        series.metric,
        series.model,
        series.model_version,
        series.reason
    from points
    inner join series
        on
            points.batch_id = series.batch_id
            and points.series_key = series.series_key
    where series.exporter in ('vllm', 'triton')
),

counter_samples as (
    select * from samples
    where metric in (
        'request_success',
        'request_failure',
        'prompt_tokens',
        'generation_tokens',
        'inference_count',
        'request_duration_us',
        'queue_duration_us',
        'compute_infer_duration_us'
    )
),

latest_points as (
    {{ gpuledger.latest_landed('counter_samples', key=['series_key', 'sampled_at']) }}
),

with_previous as (
    select
        *,
        lag(value) over (partition by series_key order by sampled_at) as previous_value
    from latest_points
),

increases as (
    select
        exporter,
        metric,
        model,
        model_version,
        reason,
        date_trunc('hour', sampled_at) as hour_start_at,
        case
            when value < previous_value then value
            else value - previous_value
        end as increase
    from with_previous
    where previous_value is not null
),

classified as (
    select
        *,
        (exporter = 'vllm' and metric = 'request_success' and coalesce(reason, 'stop') in ('stop', 'length'))
        or (exporter = 'triton' and metric = 'request_success') as is_success,
        (exporter = 'vllm' and metric = 'request_success' and coalesce(reason, 'stop') not in ('stop', 'length'))
        or (exporter = 'triton' and metric = 'request_failure') as is_failure
    from increases
),

{#- counts (rounded to whole requests and tokens) and durations: each the hour's increases
    summed exactly (gpuledger.exact_sum) -#}
{%- set counts = [
    ('request_count', 'is_success or is_failure'),
    ('successful_request_count', 'is_success'),
    ('failed_request_count', 'is_failure'),
    ('input_tokens', "metric = 'prompt_tokens'"),
    ('output_tokens', "metric = 'generation_tokens'"),
    ('inference_count', "metric = 'inference_count'"),
] %}

hourly as (
    select
        exporter as server_name,
        model as model_name,
        model_version,
        hour_start_at,
        {%- for column, condition in counts %}
        cast(round({{ gpuledger.exact_sum('case when ' ~ condition ~ ' then increase end') }}) as bigint)
            as {{ column }},
        {%- endfor %}
        {{ gpuledger.exact_sum("case when metric = 'request_duration_us' then increase end") }}
        / 1000000.0 as request_duration_seconds,
        {{ gpuledger.exact_sum("case when metric = 'queue_duration_us' then increase end") }}
        / 1000000.0 as queue_duration_seconds,
        {{ gpuledger.exact_sum("case when metric = 'compute_infer_duration_us' then increase end") }}
        / 1000000.0 as compute_infer_duration_seconds
    from classified
    group by exporter, model, model_version, hour_start_at
),

final as (
    select
        {{ surrogate_key([
            'server_name', "coalesce(model_name, '')", "coalesce(model_version, '')", 'hour_start_at'
        ]) }} as model_server_usage_id,
        *
    from hourly
)

select * from final
