{#- A stable surrogate key: md5 of the given expressions joined with '|'. -#}
{% macro surrogate_key(expressions) -%}
    md5({% for expression in expressions %}cast({{ expression }} as {{ dbt.type_string() }}){% if not loop.last %} || '|' || {% endif %}{% endfor %})
{%- endmacro %}
