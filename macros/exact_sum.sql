{#- The sum of `expression` (GPU-hours as a double) taken as a decimal of its terms rounded
    to 1e-12, returned as a double: the same on every build. A double sum's last bits follow
    the order the engine adds its terms in (threads, partitions), and a figure rounded to 6
    decimals from it could then differ between two builds of the same evidence
    (fact_showback's telemetry_unknown_gpu_hours of one tenant did: 23,927.619444 in one
    build, .619445 in the next). For the sums a published figure is rounded from: a charge
    line's quantity, the shares a line is split by, the showback's GPU-hours. With `over` (a
    window, `partition by ...`) it is the window sum. -#}
{% macro exact_sum(expression, over=none) -%}
    cast(sum(cast({{ expression }} as decimal(38, 12))){% if over %} over ({{ over }}){% endif %} as double)
{%- endmacro %}
