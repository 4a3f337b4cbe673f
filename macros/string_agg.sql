{#- An ordered string aggregate: the call block's body is the expression.
      {% call gpuledger.string_agg("', '", order_by='x', distinct=true) %}x{% endcall %}
    DuckDB: string_agg(distinct x, ', ' order by x). With distinct, the order must be the
    expression (as Spark's and the SQL standard's ordered aggregates require). -#}
{% macro string_agg(delimiter, order_by, distinct=false) -%}
    {{ return(adapter.dispatch('string_agg', 'gpuledger')(caller(), delimiter, order_by, distinct)) }}
{%- endmacro %}

{% macro default__string_agg(expression, delimiter, order_by, distinct) -%}
    string_agg({{ 'distinct ' if distinct }}{{ expression | trim }}, {{ delimiter }} order by {{ order_by }})
{%- endmacro %}

{#- Spark: sorted arrays (its listagg ... within group fails to plan inside some queries);
    a null text is not listed and an empty group is null, as string_agg gives (collect_list
    keeps the struct of a null text: a left join's unmatched row would list as ''). -#}
{% macro spark__string_agg(expression, delimiter, order_by, distinct) -%}
    {%- if distinct -%}
        {%- set values = 'array_sort(collect_set(' ~ (expression | trim) ~ '))' -%}
    {%- else -%}
        {%- set values = 'transform(filter(array_sort(collect_list(named_struct(\'k\', struct(' ~ order_by ~ ')'
            ~ ', \'v\', ' ~ (expression | trim) ~ '))), entry -> entry.v is not null), entry -> entry.v)' -%}
    {%- endif -%}
    case when size({{ values }}) = 0 then null else array_join({{ values }}, {{ delimiter }}) end
{%- endmacro %}
