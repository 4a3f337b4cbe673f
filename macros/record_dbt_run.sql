{#- Every dbt command that runs hooks records itself in the warehouse (main.dbt_invocations,
    one row per invocation, in the order they ran): which marts it selected (so may have
    rebuilt), for each of them built by period its period column, the periods it named
    frozen (GPULEDGER_FROZEN_PERIODS) and whether it was a full refresh. The served copy
    (gpuledger.core.serving) reads the rows since the invocation it last served: a mart no
    invocation since selected is unchanged there, and one built by period kept its frozen
    periods' rows, so serving copies only what can have changed. A command by hand records
    itself too (a mart it selected is copied again). Recorded at the start: a command that
    failed half-way counts as having rebuilt everything it selected. DuckDB only (Spark
    serves nothing). -#}
{% macro record_dbt_run() %}
    {%- if target.type == 'duckdb' and execute -%}
        {%- set marts = {} -%}
        {%- for unique_id in selected_resources if unique_id.startswith('model.') -%}
            {%- set node = graph.nodes.get(unique_id) -%}
            {%- if node and node.schema == 'marts' -%}
                {%- do marts.update({node.name: node.config.get('period_column')
                    if node.config.materialized == 'by_period' else none}) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- set text = dbt.type_string() -%}
        create table if not exists main.dbt_invocations (
            seq bigint,
            invocation_id {{ text }},
            started_at timestamp,
            command {{ text }},
            full_refresh boolean,
            frozen_periods {{ text }},
            selected_marts {{ text }}
        );
        insert into main.dbt_invocations
        select
            coalesce(max(seq), 0) + 1,
            '{{ invocation_id }}',
            cast(current_timestamp as timestamp),
            '{{ flags.WHICH }}',
            {{ 'true' if flags.FULL_REFRESH else 'false' }},
            '{{ gpuledger.named_frozen_periods() | join(",") }}',
            '{{ tojson(marts, sort_keys=true) | replace("'", "''") }}'
        from main.dbt_invocations
    {%- endif -%}
{% endmacro %}
