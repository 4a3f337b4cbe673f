{#- Hours from `start_at` to `end_at` as an exact decimal (seconds / 3600). -#}
{% macro hours_between(start_at, end_at) -%}
    cast({{ gpuledger.seconds_between(start_at, end_at) }} as decimal(38, 6)) / 3600
{%- endmacro %}
