{#- Hours from `start_at` to `end_at`: the seconds, to the microsecond, / 3600. -#}
{% macro hours_between(start_at, end_at) -%}
    {{ return(adapter.dispatch('hours_between', 'gpuledger')(start_at, end_at)) }}
{%- endmacro %}

{#- DuckDB divides a decimal by an integer in double precision. -#}
{% macro default__hours_between(start_at, end_at) -%}
    cast({{ gpuledger.seconds_between(start_at, end_at) }} as decimal(38, 6)) / 3600
{%- endmacro %}

{#- Spark would keep decimal(38, 6) (6 decimals of an hour); divide as DuckDB does. -#}
{% macro spark__hours_between(start_at, end_at) -%}
    cast(cast({{ gpuledger.seconds_between(start_at, end_at) }} as decimal(38, 6)) as double) / 3600
{%- endmacro %}
