{#- A select-list expression that expands to one row per month start, from the month of
    `first_at` to the month of `last_at` (columns of the relation selected from). -#}
{% macro month_starts(first_at, last_at) -%}
    {{ return(adapter.dispatch('month_starts', 'gpuledger')(first_at, last_at)) }}
{%- endmacro %}

{% macro default__month_starts(first_at, last_at) -%}
    unnest(generate_series(
        date_trunc('month', {{ first_at }}),
        date_trunc('month', {{ last_at }}),
        interval 1 month
    ))
{%- endmacro %}

{% macro spark__month_starts(first_at, last_at) -%}
    explode(sequence(
        to_date(date_trunc('month', {{ first_at }})),
        to_date(date_trunc('month', {{ last_at }})),
        interval 1 month
    ))
{%- endmacro %}
