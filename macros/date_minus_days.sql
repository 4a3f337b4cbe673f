{#- The date `days` (a whole number) days before `date`. -#}
{% macro date_minus_days(date, days) -%}
    {{ return(adapter.dispatch('date_minus_days', 'gpuledger')(date, days)) }}
{%- endmacro %}

{% macro default__date_minus_days(date, days) -%}
    ({{ date }} - cast({{ days }} as integer))
{%- endmacro %}

{% macro spark__date_minus_days(date, days) -%}
    date_sub({{ date }}, cast({{ days }} as integer))
{%- endmacro %}
