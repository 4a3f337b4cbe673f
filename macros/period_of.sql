{#- The period key 'YYYY-MM' (UTC calendar month) of a timestamp. -#}
{% macro period_of(ts) -%}
    {{ return(adapter.dispatch('period_of', 'gpuledger')(ts)) }}
{%- endmacro %}

{% macro default__period_of(ts) -%}
    strftime({{ ts }}, '%Y-%m')
{%- endmacro %}

{% macro spark__period_of(ts) -%}
    date_format({{ ts }}, 'yyyy-MM')
{%- endmacro %}
