{#- `ts` plus `seconds` (whole or fractional, to the microsecond). -#}
{% macro add_seconds(ts, seconds) -%}
    {{ return(adapter.dispatch('add_seconds', 'gpuledger')(ts, seconds)) }}
{%- endmacro %}

{% macro default__add_seconds(ts, seconds) -%}
    ({{ ts }} + to_microseconds(cast(round({{ seconds }} * 1000000) as bigint)))
{%- endmacro %}

{% macro spark__add_seconds(ts, seconds) -%}
    timestamp_micros(unix_micros({{ ts }}) + cast(round({{ seconds }} * 1000000) as bigint))
{%- endmacro %}
