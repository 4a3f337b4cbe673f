{#- An interval end that may be null (open) as a comparable timestamp. -#}
{% macro open_end(ts) -%}
    coalesce({{ ts }}, cast('{{ var("open_interval_end") }}' as timestamp))
{%- endmacro %}
