{#- The value of the row with the greatest `order` (one expression, unique in the group) in an
    aggregate's group, null when that row's value is null (never an older row's value): the
    latest landed version of a record as one aggregate, where a row_number() window would sort
    every record. Takes a filter:
    `{{ latest_by('value', 'landed_order') }} filter (where metric = 'X')`.
    DuckDB: arg_max_null; Spark: max_by. -#}
{% macro latest_by(value, order) -%}
    {{ return(adapter.dispatch('latest_by', 'gpuledger')(value, order)) }}
{%- endmacro %}

{% macro default__latest_by(value, order) -%}
    arg_max_null({{ value }}, {{ order }})
{%- endmacro %}

{% macro spark__latest_by(value, order) -%}
    max_by({{ value }}, {{ order }})
{%- endmacro %}
