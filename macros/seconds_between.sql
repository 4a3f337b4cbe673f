{#- Whole and fractional seconds from `start_at` to `end_at` (timestamps). -#}
{% macro seconds_between(start_at, end_at) -%}
    {{ return(adapter.dispatch('seconds_between', 'gpuledger')(start_at, end_at)) }}
{%- endmacro %}

{% macro default__seconds_between(start_at, end_at) -%}
    (epoch({{ end_at }}) - epoch({{ start_at }}))
{%- endmacro %}

{% macro spark__seconds_between(start_at, end_at) -%}
    cast(unix_micros({{ end_at }}) - unix_micros({{ start_at }}) as double) / 1000000
{%- endmacro %}
