{#- The rows of the reconciliation check `name`, from `measured` (one row per period with
    observed_value, limit_value, detail and whatever the status rule reads): the status
    `status` gives on the unrounded figure (see reconciliation_status), and from the check's
    registration (dbt_project.yml vars.reconciliation_checks) whether a failure blocks the
    close and the figure's unit. Figures are rounded to six decimals. The check must be
    registered, and its model must be reconciliation_check__<name>, or it does not compile. -#}
{% macro reconciliation_check(name, measured, status) -%}
    {%- set registered = var('reconciliation_checks') | selectattr('name', 'equalto', name) | list -%}
    {%- if registered | length != 1 -%}
        {{ exceptions.raise_compiler_error(
            'check ' ~ name ~ ' is not registered once in dbt_project.yml vars.reconciliation_checks'
        ) }}
    {%- endif -%}
    {%- if model.resource_type == 'model' and model.name != 'reconciliation_check__' ~ name -%}
        {{ exceptions.raise_compiler_error(
            'model ' ~ model.name ~ ' reports check ' ~ name ~ ': name it reconciliation_check__' ~ name
        ) }}
    {%- endif -%}
    {%- set check = registered[0] -%}
    {%- if check.is_blocking is not boolean or check.unit is not string -%}
        {{ exceptions.raise_compiler_error(
            'check ' ~ name ~ ' in dbt_project.yml vars.reconciliation_checks needs is_blocking (true or false) and unit'
        ) }}
    {%- endif -%}
    select
        period,
        {{ dbt.string_literal(name) }} as check_name,
        {{ status }} as status,
        {{ 'true' if check.is_blocking else 'false' }} as is_blocking,
        cast(round(observed_value, 6) as decimal(24, 6)) as observed_value,
        cast(round(limit_value, 6) as decimal(24, 6)) as limit_value,
        {{ dbt.string_literal(check.unit) }} as unit,
        detail
    from {{ measured }}
{%- endmacro %}
