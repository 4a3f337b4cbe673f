{#- dbt's get_where_subquery (the relation a data test reads, filtered by its `where`
    config), with two placeholders a `where` may use: __rebuilt_start__ and __rebuilt_end__,
    the first day and the day after the last that this build's incremental models rebuilt
    (GPULEDGER_CHECKED_WINDOW, `YYYY-MM-DD/YYYY-MM-DD`, gpuledger.core.incremental), as date
    literals. A test of a table rebuilt by days checks the days rebuilt, not all history (the
    other days were checked when they were built): the table's own where
    GPULEDGER_CHECKED_MODEL_WINDOWS names fewer for it (`model=YYYY-MM-DD/YYYY-MM-DD,...`,
    gpuledger.days_of). Without the variable (dbt run by hand) the bounds take in every day.
    Replaced when the test runs, never while dbt parses. A test of a model built by period
    checks the periods the build computed when it keeps frozen ones
    (gpuledger.computed_periods_predicate). -#}
{% macro get_where_subquery(relation) -%}
    {%- set where = config.get('where', '') -%}
    {%- set periods = gpuledger.computed_periods_predicate(relation) if execute else '' -%}
    {%- if periods | trim -%}
        {%- set where = '(' ~ where ~ ') and ' ~ periods if where else periods -%}
    {%- endif -%}
    {%- if where -%}
        {%- if '__rebuilt_' in where -%}
            {%- set value = gpuledger.days_of(
                relation.identifier, 'GPULEDGER_CHECKED_WINDOW', 'GPULEDGER_CHECKED_MODEL_WINDOWS'
            ) if execute else '' -%}
            {%- set bounds = value.split('/') if '/' in value else ['0001-01-01', '9999-12-31'] -%}
            {%- set where = where
                | replace('__rebuilt_start__', "cast('" ~ bounds[0] ~ "' as date)")
                | replace('__rebuilt_end__', "cast('" ~ bounds[1] ~ "' as date)") -%}
        {%- endif -%}
        {%- set filtered -%}
            (select * from {{ relation }} where {{ where }}) dbt_subquery
        {%- endset -%}
        {{ return(filtered) }}
    {%- else -%}
        {{ return(relation) }}
    {%- endif -%}
{%- endmacro %}
