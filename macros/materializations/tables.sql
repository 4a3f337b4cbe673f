{#- What the project's materializations share (by_day, by_period, by_key). -#}

{#- The model's table made whole from its query (`sql`): `existing_relation` dropped if there
    is one, then `create table ... as` (on Spark with the model's partition_by and
    file_format), as the `main` statement. -#}
{% macro make_whole(existing_relation, target_relation, sql) -%}
    {%- if existing_relation is not none -%}
        {% do adapter.drop_relation(existing_relation) %}
    {%- endif %}
    {% call statement('main') -%}
        {{ create_table_as(False, target_relation, sql) }}
    {%- endcall %}
{%- endmacro %}

{#- The end of a DuckDB materialization: the relation's docs, the model's post-hooks inside
    the transaction, the commit, the post-hooks after it. -#}
{% macro commit_table(target_relation, post_hooks) -%}
    {% do persist_docs(target_relation, model) %}
    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {% do adapter.commit() %}
    {{ run_hooks(post_hooks, inside_transaction=False) }}
{%- endmacro %}
