{#- A table whose frozen periods' rows are kept (gpuledger.frozen_periods: closed periods
    no new batch touches, gpuledger.core.period_scope): a run deletes the rows of every
    other period and inserts the model's rows of those periods, in one transaction. Without
    frozen periods (the first build, a full refresh, a change of the project's code or policy,
    dbt run by hand) the table is made whole from the query, as a table model is. The rows
    are inserted by column name: a query column the table lacks fails the run (a table column
    the query lacks is left null), and a changed project rebuilds every period anyway. -#}
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

    {{ gpuledger.commit_table(target_relation, post_hooks) }}

    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}

{#- The same on Spark: a Parquet table partitioned by the period column
    (gpuledger.by_period_config). A run replaces the partitions of every period it computes
    that the table holds (a period whose rows are all gone keeps none, as the DuckDB delete
    leaves none) by the model's rows of those periods; the frozen periods' partitions, their
    files included, are left as they are (macros/materializations/spark_partitions.sql).
    Nothing records a failed run's periods as frozen, so the next run computes them again.
    Made whole from the query as on DuckDB. -#}
{% materialization by_period, adapter='spark' %}
    {%- set period_column = config.require('period_column') -%}
    {%- set existing_relation = load_relation(this) -%}
    {%- set target_relation = this.incorporate(type='table') -%}
    {%- set frozen = gpuledger.frozen_periods() -%}
    {%- set rebuild_whole = existing_relation is none or should_full_refresh() or not frozen -%}

    {{ run_hooks(pre_hooks) }}

    {%- if rebuild_whole -%}
        {{ gpuledger.make_whole(existing_relation, target_relation, compiled_code) }}
    {%- else -%}
        {%- set held = run_query(
            'select distinct ' ~ period_column ~ ' from ' ~ target_relation
        ).columns[0].values() -%}
        {{ gpuledger.spark_replace_partitions(
            target_relation, period_column, held | reject('in', frozen) | list, compiled_code,
            where=gpuledger.live_period(period_column)
        ) }}
    {%- endif %}

    {% do persist_docs(target_relation, model) %}
    {{ run_hooks(post_hooks) }}

    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
