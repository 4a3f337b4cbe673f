{#- The recurring status rules of the reconciliation checks, on the unrounded observed_value:
    within_tolerance (at most 1e-6, for summed GPU-hours), within_limit (at most
    limit_value), none_found (exactly zero). -#}
{% macro reconciliation_status(rule) -%}
    {%- if rule == 'within_tolerance' -%}
        case when observed_value <= 0.000001 then 'pass' else 'fail' end
    {%- elif rule == 'within_limit' -%}
        case when observed_value <= limit_value then 'pass' else 'fail' end
    {%- elif rule == 'none_found' -%}
        case when observed_value = 0 then 'pass' else 'fail' end
    {%- else -%}
        {{ exceptions.raise_compiler_error('reconciliation_status: unknown rule ' ~ rule) }}
    {%- endif -%}
{%- endmacro %}
