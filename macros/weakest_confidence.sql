{#- Aggregate: the weakest confidence among rows (high > medium > modeled > unattributed). -#}
{% macro weakest_confidence(column) -%}
    case max(case {{ column }}
        when 'high' then 1
        when 'medium' then 2
        when 'modeled' then 3
        else 4
    end)
        when 1 then 'high'
        when 2 then 'medium'
        when 3 then 'modeled'
        else 'unattributed'
    end
{%- endmacro %}
