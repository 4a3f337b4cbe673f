{#- Whether a charge line is unpriced: its component is priced by the rate card
    (vars.rate_card_components) and no rate covered it (unit_price null; its amount is then
    0.00, which is not a price). -#}
{% macro is_unpriced(unit_price, charge_component) -%}
    ({{ unit_price }} is null and {{ charge_component }} in (
        {%- for component in var('rate_card_components') -%}
            {{ dbt.string_literal(component) }}{{ ', ' if not loop.last }}
        {%- endfor -%}
    ))
{%- endmacro %}
