{#- The SHA-256 of a text expression as 64 lowercase hex digits (null stays null). -#}
{% macro sha256_hex(expression) -%}
    {{ return(adapter.dispatch('sha256_hex', 'gpuledger')(expression)) }}
{%- endmacro %}

{% macro default__sha256_hex(expression) -%}
    sha256({{ expression }})
{%- endmacro %}

{% macro spark__sha256_hex(expression) -%}
    sha2({{ expression }}, 256)
{%- endmacro %}
