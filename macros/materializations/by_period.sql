{#- A table whose frozen periods' rows are kept (gpuledger.frozen_periods: closed periods
    whose evidence is settled, gpuledger.core.period_scope): a run deletes the rows of every
    other period and inserts the model's rows of those periods, in one transaction. Without
    frozen periods (the first build, a full refresh, a change of the project's code or policy,
    dbt run by hand) the table is made whole from the query, as a table model is. The rows
    are inserted by column name: a query whose columns no longer match the table's fails
    the run, and a changed project rebuilds every period anyway. -#}
{% materialization by_period, adapter='duckdb' %}
    {%- set period_column = config.require('period_column') -%}
    {%- set existing_relation = load_cached_relation(this) -%}
    {%- set target_relation = this.incorporate(type='table') -%}
    {%- set frozen = gpuledger.frozen_periods() -%}
    {%- set rebuild_whole = existing_relation is none or should_full_refresh() or not frozen -%}

    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}

    {%- if rebuild_whole and existing_relation is not none -%}
        {% do adapter.drop_relation(existing_relation) %}
    {%- endif %}

    {% call statement('main') -%}
        {{ gpuledger.replace_rows(
            target_relation, compiled_code, rebuild_whole,
            gpuledger.live_period(period_column), filtered=true
        ) }}
    {%- endcall %}

    {% do persist_docs(target_relation, model) %}
    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {% do adapter.commit() %}
    {{ run_hooks(post_hooks, inside_transaction=False) }}

    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
