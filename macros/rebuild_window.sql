{#- A predicate keeping the rows of `column` an incremental model's run rebuilds: the days
    [start, end) the build runner names in GPULEDGER_REBUILD_WINDOW (`YYYY-MM-DD/YYYY-MM-DD`,
    gpuledger.core.incremental), widened by `before_seconds` and `after_seconds` for a model
    that reads its input with a halo (neighbouring samples, an interval that runs into the
    next hour). A full refresh names every day (or, rebuilt in pieces, its first piece's).
    `true` in a unit test or when no window is named (every day is rebuilt: dbt run by
    hand). The bounds are literals, so a Parquet scan skips the row groups outside them. The
    variable is read only when the model runs, never while dbt parses (a new window is not a
    project change). -#}
{% macro rebuild_window(column, before_seconds=0, after_seconds=0) -%}
    {#- a unit test has no relation of its own (`this`): the model is built whole there -#}
    {%- set rebuilding = execute and this is not none -%}
    {%- set value = env_var('GPULEDGER_REBUILD_WINDOW', '') if rebuilding else '' -%}
    {%- if value and '/' in value -%}
        {%- set parts = value.split('/') -%}
        {%- set day = modules.datetime.datetime.strptime -%}
        {%- set start = day(parts[0], '%Y-%m-%d') - modules.datetime.timedelta(seconds=before_seconds) -%}
        {%- set end = day(parts[1], '%Y-%m-%d') + modules.datetime.timedelta(seconds=after_seconds) -%}
        {{ column }} >= cast('{{ start.strftime("%Y-%m-%d %H:%M:%S") }}' as timestamp)
        and {{ column }} < cast('{{ end.strftime("%Y-%m-%d %H:%M:%S") }}' as timestamp)
    {%- else -%}
        true
    {%- endif -%}
{%- endmacro %}

{#- The config of an incremental model rebuilt by whole days of `day_column`: DuckDB deletes
    the days of the window and inserts the query's rows (macros/materializations/by_day.sql);
    Spark overwrites those day partitions (dbt's incremental insert_overwrite). -#}
{% macro by_day_incremental_config(day_column) -%}
    {%- if target.type == 'spark' -%}
        {{ return({
            'materialized': 'incremental',
            'incremental_strategy': 'insert_overwrite',
            'partition_by': [day_column],
            'on_schema_change': 'fail',
        }) }}
    {%- else -%}
        {{ return({'materialized': 'by_day', 'day_column': day_column}) }}
    {%- endif -%}
{%- endmacro %}
