{#- A table kept per record key (gpuledger.by_key_config, macros/keyed.sql): a run that
    names the batches landed since the last build (gpuledger.keyed_batches) computes the rows
    of the keys those batches name (the model filters its records with gpuledger.keyed),
    deletes the table's rows of those keys (`unique_key`, a list of columns; null equal to
    null) and inserts the new ones, in one transaction; the rows of every other key stay as
    they are. A key's row depends only on its own records, and on records whose keys the
    model names through gpuledger.keyed's `also` (a complete list of pods ends the pods it
    no longer has); a batch never leaves the raw store once built (validation runs before
    the build that first reads it), so the rows kept are those a whole build gives. The
    first run, a full refresh, and a run that names no batches make the table whole from the
    query, as a table model is. The rows are inserted by column name: a query column the
    table lacks fails the run, and a changed model is rebuilt whole anyway
    (gpuledger.core.incremental.keyed_fingerprint). It prints the keys it recomputed. -#}
{% materialization by_key, adapter='duckdb' %}
    {%- set key = config.require('unique_key') -%}
    {%- set existing_relation = load_cached_relation(this) -%}
    {%- set target_relation = this.incorporate(type='table') -%}
    {%- set batches = gpuledger.keyed_batches() -%}
    {%- set recomputed = make_temp_relation(target_relation) -%}

    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}

    {%- if batches is none -%}
        {{ gpuledger.make_whole(existing_relation, target_relation, compiled_code) }}
    {%- else -%}
        {% call statement('recompute') -%}
            create or replace temporary table {{ recomputed.identifier }} as
            {{ compiled_code }}
        {%- endcall %}
        {%- set keys = run_query('select count(*) from ' ~ recomputed.identifier).columns[0].values()[0] -%}
        {% call statement('main') -%}
            delete from {{ target_relation }} as kept
            using {{ recomputed.identifier }} as recomputed
            where
                {%- for column in key %}
                kept.{{ column }} is not distinct from recomputed.{{ column }}{{ ' and' if not loop.last }}
                {%- endfor %};
            insert into {{ target_relation }} by name
            select * from {{ recomputed.identifier }};
            drop table {{ recomputed.identifier }}
        {%- endcall %}
        {{ print('gpuledger kept by key: ' ~ this.identifier ~ ' recomputed ' ~ keys ~ ' key(s) of ' ~ batches | length ~ ' new batch(es)') }}
    {%- endif %}

    {{ gpuledger.commit_table(target_relation, post_hooks) }}

    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}

{#- The same on Spark: made whole from the query on every run, as a table model is (a
    Parquet table cannot delete rows; gpuledger.keyed_batches names none on Spark). -#}
{% materialization by_key, adapter='spark' %}
    {%- set existing_relation = load_relation(this) -%}
    {%- set target_relation = this.incorporate(type='table') -%}

    {{ run_hooks(pre_hooks) }}
    {{ gpuledger.make_whole(existing_relation, target_relation, compiled_code) }}
    {% do persist_docs(target_relation, model) %}
    {{ run_hooks(post_hooks) }}

    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
