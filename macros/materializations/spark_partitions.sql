{#- What the Spark materializations (by_day and by_period) share. A table partitioned by one
    column is either made whole from the model's query (gpuledger.make_whole: the old table
    dropped, `create table ... as`, with the model's partition_by and file_format) or has
    some of its partitions replaced (spark_replace_partitions): the partition of each of
    `values` dropped, then the query's rows inserted by column name (`insert ... by name`,
    with DuckDB's rules: a query column the table lacks fails the run, a table column the query
    lacks is left null; both seen on pyspark 4.3.0 and DuckDB), only those `where` keeps when
    it is given. A value the query no longer returns keeps no rows. Spark has no transaction
    over the statements: a run that fails between them leaves those partitions empty until a
    run replaces them again. -#}
{% macro spark_replace_partitions(relation, column, values, sql, where=none) -%}
    {%- for value in values if value is not none -%}
        {% call statement('drop_partition_' ~ loop.index) -%}
            alter table {{ relation }}
            drop if exists partition ({{ column }} = '{{ value }}')
        {%- endcall %}
    {%- endfor %}
    {% call statement('main') -%}
        insert into table {{ relation }} by name
        select * from (
            {{ sql }}
        ) as replacing_rows
        {%- if where %}
        where {{ where }}
        {%- endif %}
    {%- endcall %}
{%- endmacro %}

{#- `settings` (a model config) with, on Spark, the table partitioned by `column` and
    written as Parquet; unchanged on DuckDB. -#}
{% macro partitioned_by(settings, column) -%}
    {%- if target.type == 'spark' -%}
        {%- do settings.update({'partition_by': [column], 'file_format': 'parquet'}) -%}
    {%- endif -%}
    {{ return(settings) }}
{%- endmacro %}
