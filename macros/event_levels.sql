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

{#- A tenant timeline row's change of `level` from the tenant's row before it in the same
    period (int_tenant_class_timeline, `rows` its CTE name); the tenant's first row in a period
    changes from 0: the level it opens the period with. A class sweep of one period adds these
    changes (int_class_timeline, int_capacity_idle_timeline). -#}
{% macro change_in_period(rows, level) -%}
    {{ rows }}.{{ level }} - coalesce(lag({{ rows }}.{{ level }}) over (
        partition by {{ rows }}.tenant_id, {{ rows }}.gpu_class, {{ rows }}.period
        order by {{ rows }}.interval_start_at
    ), 0)
{%- endmacro %}

{#- Events at the start and at the end of each (gpu_class, period) of `rows` (a CTE name; the
    periods' bounds from the CTE `periods`), each delta of `deltas` (a mapping delta column ->
    its zero) 0: a class sweep of one period is cut at its ends. Rows of a union of deltas:
    (gpu_class, period, event_at, the deltas). -#}
{% macro period_edges(rows, deltas, periods='periods') -%}
    {%- for edge in ['start', 'end'] %}
    select
        {{ rows }}.gpu_class,
        {{ rows }}.period,
        {{ periods }}.period_{{ edge }}_at as event_at,
        {%- for delta, zero in deltas.items() %}
        {{ zero }} as {{ delta }}{{ ',' if not loop.last }}
        {%- endfor %}
    from {{ rows }}
    inner join {{ periods }} on {{ rows }}.period = {{ periods }}.period
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{%- endmacro %}
