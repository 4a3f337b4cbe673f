{#- A select-list expression that expands to one row per ISO week start (Monday 00:00), from
    the week of `first_at` to the week of `last_at` (columns of the relation selected from). -#}
{% macro week_starts(first_at, last_at) -%}
    {{ return(adapter.dispatch('week_starts', 'gpuledger')(first_at, last_at)) }}
{%- endmacro %}

{% macro default__week_starts(first_at, last_at) -%}
    unnest(generate_series(
        date_trunc('week', {{ first_at }}),
        date_trunc('week', {{ last_at }}),
        interval 7 day
    ))
{%- endmacro %}

{% macro spark__week_starts(first_at, last_at) -%}
    explode(sequence(
        to_date(date_trunc('week', {{ first_at }})),
        to_date(date_trunc('week', {{ last_at }})),
        interval 1 week
    ))
{%- endmacro %}
