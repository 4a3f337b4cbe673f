{#- The sum of `expression` (a double: GPU-hours, seconds, counter increases) taken as a
    decimal of its terms rounded to 1e-12, returned as a double: the same on every build. A
    double sum's last bits follow the order the engine adds its terms in (threads,
    partitions), and a figure rounded from it could then differ between two builds of the same
    evidence (fact_showback's telemetry_unknown_gpu_hours of one tenant did: 23,927.619444 in
    one build, .619445 in the next; int_allocation_activity's mean_active_ratio, to 9 decimals,
    in 2 of 556,801 segments). For every sum of doubles a published figure comes from: charge
    lines and the shares they are split by, the showback, the activity roll-ups and each
    segment's activity, capacity, reservations, failed work, the model servers' counters and
    the reconciliation checks. With `over` (a window, `partition by ...`) it is the window
    sum. -#}
{% macro exact_sum(expression, over=none) -%}
    cast(sum({{ gpuledger.exact_term(expression) }}){% if over %} over ({{ over }}){% endif %} as double)
{%- endmacro %}

{#- A term of an exact sum: `expression` rounded to 1e-12 as a decimal that holds 1e26 (a
    Prometheus point beyond 1e18 never lands, extractors.prometheus.records.VALUE_LIMIT). -#}
{% macro exact_term(expression) -%}
    cast({{ expression }} as decimal(38, 12))
{%- endmacro %}

{#- A running integral before each row, kept as a decimal of exact terms (0 at the first row
    of a partition): the difference of two of its values is the exact sum of the terms
    between them, where a double running sum near 10^5 hours loses about 1e-11 at each
    difference (the borrowed integral of int_allocation_segments, the unused guarantee's of
    int_capacity_idle_timeline). With `through`, the integral through each row, its own term
    included. -#}
{% macro exact_running_sum(expression, partition_by, order_by, through=false) -%}
    {%- set total -%}
        sum({{ gpuledger.exact_term(expression) }}) over (
            partition by {{ partition_by }} order by {{ order_by }}
            rows between unbounded preceding and {{ 'current row' if through else '1 preceding' }}
        )
    {%- endset -%}
    {{ total if through else 'coalesce(' ~ total ~ ', ' ~ gpuledger.exact_term(0) ~ ')' }}
{%- endmacro %}
