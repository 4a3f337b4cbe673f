{#- Whole and fractional seconds from `start_at` to `end_at` (timestamps). -#}
{% macro seconds_between(start_at, end_at) -%}
    {{ return(adapter.dispatch('seconds_between', 'gpuledger')(start_at, end_at)) }}
{%- endmacro %}

{% macro default__seconds_between(start_at, end_at) -%}
    (epoch({{ end_at }}) - epoch({{ start_at }}))
{%- endmacro %}

{% macro spark__seconds_between(start_at, end_at) -%}
    (unix_micros({{ end_at }}) - unix_micros({{ start_at }})) / 1000000.0
{%- endmacro %}
