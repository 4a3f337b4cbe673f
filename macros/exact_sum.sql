{#- The sum of `expression` (GPU-hours as a double) taken as a decimal of its terms rounded
    to 1e-12, returned as a double: the same on every build and both engines. A double sum's
    last bits follow the order the engine adds its terms in (threads, partitions), and a
    charge line's quantity rounded to 6 decimals from it could then differ between two builds
    of the same evidence. For sums over many rows (a period's segments) that a line's
    quantity, or the share a line is split by, is rounded from. -#}
{% macro exact_sum(expression) -%}
    cast(sum(cast({{ expression }} as decimal(38, 12))) as double)
{%- endmacro %}
