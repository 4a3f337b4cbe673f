{#- The sweep: piecewise-constant levels from event deltas. `deltas` (a CTE name) has one row
    per change: the `partition_by` columns, `event_at`, and for each level in `levels` (a
    mapping level name -> delta column) its delta there. One row per partition and event
    instant: [interval_start_at, interval_end_at) to the next event of the partition (null
    after the last), each delta column summed over the instant, and each level the running
    sum of its deltas through the instant (rounded to `round_to` decimals when given).
    O(n log n): a sort and running sums, no range join. -#}
{% macro event_levels(deltas, partition_by, levels, round_to=none) -%}
    {%- set partition = partition_by | join(', ') -%}
    select
        {%- for column in partition_by %}
        {{ column }},
        {%- endfor %}
        event_at as interval_start_at,
        lead(event_at) over (partition by {{ partition }} order by event_at) as interval_end_at,
        {%- for level, delta in levels.items() %}
        sum({{ delta }}) as {{ delta }},
        {%- set running = 'sum(sum(' ~ delta ~ ')) over (partition by ' ~ partition
            ~ ' order by event_at rows unbounded preceding)' %}
        {{ 'round(' ~ running ~ ', ' ~ round_to ~ ')' if round_to is not none else running }} as {{ level }}
        {%- if not loop.last %},{% endif %}
        {%- endfor %}
    from {{ deltas }}
    group by {{ partition }}, event_at
{%- endmacro %}
