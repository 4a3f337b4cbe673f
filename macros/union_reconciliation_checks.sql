{#- The rows of every registered reconciliation check (dbt_project.yml
    vars.reconciliation_checks), each from its model reconciliation_check__<name>. The list
    is a var, so dbt knows every ref when it parses and fact_reconciliation depends on each
    check model; a registered check without a model fails the parse. -#}
{% macro union_reconciliation_checks() -%}
    {%- for check in var('reconciliation_checks') %}
    select
        period,
        check_name,
        status,
        is_blocking,
        observed_value,
        limit_value,
        unit,
        detail
    from {{ ref('reconciliation_check__' ~ check.name) }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{%- endmacro %}
