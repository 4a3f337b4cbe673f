{#- The DuckDB materialization of the incremental models rebuilt by whole days
    (gpuledger.by_day_incremental_config): a run deletes the days of its window
    (GPULEDGER_REBUILD_WINDOW, every day when none is named) and inserts the model's rows
    straight from its query, in one transaction. dbt's own incremental materialization first
    writes the query into a temporary table and then copies it (delete+insert by the day
    column): a copy of every row rebuilt, about a sixth of a telemetry piece's run.
    A window's days are replaced whole, so a day whose evidence is gone (a batch quarantined
    after it was built) keeps no stale rows. The first run, and a full refresh, create the
    table from the query. The rows are inserted by column name: a query whose columns no longer
    match the table's fails the run (as on_schema_change='fail' does), and a changed model
    rebuilds everything anyway (gpuledger.core.incremental.FINGERPRINT). -#}
{% materialization by_day, adapter='duckdb' %}
    {%- set day_column = config.require('day_column') -%}
    {%- set existing_relation = load_cached_relation(this) -%}
    {%- set target_relation = this.incorporate(type='table') -%}
    {%- set rebuild_whole = existing_relation is none or should_full_refresh() -%}

    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}

    {%- if rebuild_whole and existing_relation is not none -%}
        {% do adapter.drop_relation(existing_relation) %}
    {%- endif %}

    {% call statement('main') -%}
        {%- if rebuild_whole -%}
            {{ create_table_as(False, target_relation, compiled_code) }}
        {%- else -%}
            delete from {{ target_relation }}
            where {{ gpuledger.rebuild_window(day_column) }};
            insert into {{ target_relation }} by name
            select * from (
                {{ compiled_code }}
            ) as rebuilt_days
        {%- endif -%}
    {%- endcall %}

    {% do persist_docs(target_relation, model) %}
    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {% do adapter.commit() %}
    {{ run_hooks(post_hooks, inside_transaction=False) }}

    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
