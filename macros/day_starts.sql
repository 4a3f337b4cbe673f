{#- A select-list expression that expands to one row per UTC day start, from the day of
    `first_at` to the day of `last_at` (columns of the relation selected from). -#}
{% macro day_starts(first_at, last_at) -%}
    {{ return(adapter.dispatch('day_starts', 'gpuledger')(first_at, last_at)) }}
{%- endmacro %}

{% macro default__day_starts(first_at, last_at) -%}
    unnest(generate_series(
        date_trunc('day', {{ first_at }}),
        date_trunc('day', {{ last_at }}),
        interval 1 day
    ))
{%- endmacro %}

{% macro spark__day_starts(first_at, last_at) -%}
    explode(sequence(
        date_trunc('day', {{ first_at }}),
        date_trunc('day', {{ last_at }}),
        interval 1 day
    ))
{%- endmacro %}
