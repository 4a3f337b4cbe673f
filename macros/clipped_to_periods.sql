{#- The rows of `relation` (a CTE), each interval [`from_column`, `to_column`) (a null end:
    open) clipped to each period of `periods` (int_periods' rows) it overlaps: one row per
    interval and period, with the period, the `columns` of `relation` named, and the clipped
    bounds as `from_as` and `to_as`. An interval that overlaps no period has no row; one
    ending at or after a period's end is cut at that end. The capacity by class, the
    reservations per period, and the class and idle sweeps (devices in service, waiting
    requests) clip alike. -#}
{% macro clipped_to_periods(
    relation, from_column, to_column, columns, from_as='from_at', to_as='to_at', periods='periods'
) -%}
    {%- set interval_end = gpuledger.open_end(relation ~ '.' ~ to_column) -%}
    select
        {{ periods }}.period,
        {%- for column in columns %}
        {{ relation }}.{{ column }},
        {%- endfor %}
        greatest({{ relation }}.{{ from_column }}, {{ periods }}.period_start_at) as {{ from_as }},
        least({{ interval_end }}, {{ periods }}.period_end_at) as {{ to_as }}
    from {{ relation }}
    inner join {{ periods }}
        on
            {{ relation }}.{{ from_column }} < {{ periods }}.period_end_at
            and {{ interval_end }} > {{ periods }}.period_start_at
{%- endmacro %}

{#- With frozen periods (gpuledger.frozen_periods), a where clause keeping the rows of
    `relation` whose interval [`from_column`, `to_column`) overlaps a period of `periods`
    (int_periods' rows) this run computes; nothing when every period is computed. A model
    built by period computes only what reaches the periods it computes with it (the
    allocations cut into segments, the waiting requests). -#}
{% macro where_overlaps_live_periods(relation, from_column, to_column, periods='periods') -%}
    {%- if gpuledger.frozen_periods() %}
    where exists (
        select 1
        from {{ periods }}
        where
            {{ gpuledger.live_period(periods ~ '.period') }}
            and {{ relation }}.{{ from_column }} < {{ periods }}.period_end_at
            and {{ relation }}.{{ to_column }} > {{ periods }}.period_start_at
    )
    {%- endif %}
{%- endmacro %}
