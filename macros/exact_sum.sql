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
    cast(sum(cast({{ expression }} as decimal(38, 12))){% if over %} over ({{ over }}){% endif %} as double)
{%- endmacro %}
