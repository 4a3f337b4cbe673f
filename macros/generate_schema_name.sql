{#- Custom schemas are used as named (staging, intermediate, marts), not prefixed; on the
    served copy (target serving: the semantic layer's) every mart is in the main schema. -#}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- if custom_schema_name is none or target.name == 'serving' -%}
        {{ target.schema }}
    {%- else -%}
        {{ custom_schema_name | trim }}
    {%- endif -%}
{%- endmacro %}
