{#- A setting the policy may not type yet: `settings.<key>` when stg_policy__settings has a
    column of that name (null there falls back too), else the var `key` (default `default`).
    The model must select from stg_policy__settings as `settings`. -#}
{% macro policy_setting(key, default) -%}
    {%- set columns = [] -%}
    {%- if execute -%}
        {%- set settings_ref = ref('stg_policy__settings') -%}
        {#- a unit test's ref is a fixture with no schema: the var applies -#}
        {%- set relation = none -%}
        {%- if settings_ref.schema is not none and settings_ref.database is not none -%}
            {%- set relation = adapter.get_relation(
                database=settings_ref.database, schema=settings_ref.schema, identifier=settings_ref.identifier
            ) -%}
        {%- endif -%}
        {%- if relation is not none -%}
            {%- set columns = adapter.get_columns_in_relation(relation) | map(attribute='name') | map('lower') | list -%}
        {%- endif -%}
    {%- endif -%}
    {%- if key in columns -%}
        coalesce(settings.{{ key }}, {{ var(key, default) }})
    {%- else -%}
        {{ var(key, default) }}
    {%- endif -%}
{%- endmacro %}
