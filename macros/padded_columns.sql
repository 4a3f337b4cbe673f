{#- The select list of one branch of a union whose branches share a declared shape: every
    column of `columns` ((name, type) pairs), in its order, as the expression `values` gives
    for it, else as a null of its type. So a branch states only what it knows, and every
    branch has the same columns in the same order. A name in `values` that the shape lacks
    is an error. -#}
{% macro padded_columns(columns, values) -%}
    {%- set names = columns | map(attribute=0) | list -%}
    {%- for name in values if name not in names -%}
        {{ exceptions.raise_compiler_error("padded_columns: '" ~ name ~ "' is not a column of the shape") }}
    {%- endfor -%}
    {%- for name, data_type in columns %}
        {%- set value = values[name] if name in values else 'cast(null as ' ~ data_type ~ ')' %}
        {{ value }}{{ ' as ' ~ name if value != name }}{{ ',' if not loop.last }}
    {%- endfor %}
{%- endmacro %}
