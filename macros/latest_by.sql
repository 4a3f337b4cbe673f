{#- The value of the row with the greatest `order` in an aggregate's group, null when that
    row's value is null (never an older row's value): the latest landed version of a record as
    one aggregate, where a row_number() window would sort every record. `order` is one
    expression, or a list compared in turn; it must be unique in the group, as latest_landed's
    order is (extraction, batch, line). Takes a filter:
    `{{ latest_by('value', 'landed_order') }} filter (where metric = 'X')`.
    DuckDB: arg_max_null; Spark: max_by (over a struct for a list). -#}
{% macro latest_by(value, order) -%}
    {{ return(adapter.dispatch('latest_by', 'gpuledger')(value, order)) }}
{%- endmacro %}

{% macro default__latest_by(value, order) -%}
    {%- if order is string -%}
        arg_max_null({{ value }}, {{ order }})
    {%- else -%}
        arg_max_null({{ value }}, row({{ order | join(', ') }}))
    {%- endif -%}
{%- endmacro %}

{% macro spark__latest_by(value, order) -%}
    {%- if order is string -%}
        max_by({{ value }}, {{ order }})
    {%- else -%}
        max_by({{ value }}, struct({{ order | join(', ') }}))
    {%- endif -%}
{%- endmacro %}
