{#- A table whose frozen periods' rows are kept (gpuledger.frozen_periods: closed periods
    whose evidence is settled, gpuledger.core.period_scope): a run deletes the rows of every
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

    {% do persist_docs(target_relation, model) %}
    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {% do adapter.commit() %}
    {{ run_hooks(post_hooks, inside_transaction=False) }}

    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}

{#- The same on Spark: a Parquet table partitioned by the period column
    (gpuledger.by_period_config). A run drops the partitions of every period it computes that
    the table holds (a period whose rows are all gone keeps none, as the DuckDB delete leaves
    none) and inserts the model's rows of those periods; the frozen periods' partitions, their
    files included, are left as they are. Spark has no transaction over the two statements: a
    run that fails between them leaves its periods empty, and the next run computes them again
    (nothing records a failed run's periods as frozen). Made whole from the query as on
    DuckDB. The rows are inserted by column name (`insert ... by name`), with DuckDB's rules:
    a query column the table lacks fails the run, a table column the query lacks is left
    null (both seen on pyspark 4.3.0 and DuckDB). -#}
{% materialization by_period, adapter='spark' %}
    {%- set period_column = config.require('period_column') -%}
    {%- set existing_relation = load_relation(this) -%}
    {%- set target_relation = this.incorporate(type='table') -%}
    {%- set frozen = gpuledger.frozen_periods() -%}
    {%- set rebuild_whole = existing_relation is none or should_full_refresh() or not frozen -%}

    {{ run_hooks(pre_hooks) }}

    {%- if rebuild_whole -%}
        {%- if existing_relation is not none -%}
            {% do adapter.drop_relation(existing_relation) %}
        {%- endif %}
        {% call statement('main') -%}
            {{ create_table_as(False, target_relation, compiled_code) }}
        {%- endcall %}
    {%- else -%}
        {%- set held = run_query(
            'select distinct ' ~ period_column ~ ' from ' ~ target_relation
        ).columns[0].values() -%}
        {%- for period in held if period is not none and period not in frozen -%}
            {% call statement('drop_period_' ~ loop.index) -%}
                alter table {{ target_relation }}
                drop if exists partition ({{ period_column }} = '{{ period }}')
            {%- endcall %}
        {%- endfor %}
        {% call statement('main') -%}
            insert into table {{ target_relation }} by name
            select * from (
                {{ compiled_code }}
            ) as replacing_rows
            where {{ gpuledger.live_period(period_column) }}
        {%- endcall %}
    {%- endif %}

    {% do persist_docs(target_relation, model) %}
    {{ run_hooks(post_hooks) }}

    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
