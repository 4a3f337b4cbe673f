{#- `ts` plus `n` calendar months, as a timestamp. -#}
{% macro add_months(ts, n) -%}
    {{ return(adapter.dispatch('add_months', 'gpuledger')(ts, n)) }}
{%- endmacro %}

{% macro default__add_months(ts, n) -%}
    cast({{ ts }} + to_months({{ n }}) as timestamp)
{%- endmacro %}

{% macro spark__add_months(ts, n) -%}
    cast(add_months({{ ts }}, {{ n }}) as timestamp)
{%- endmacro %}
