{#- Models kept per record key (the by_key materialization,
    macros/materializations/by_key.sql): a model whose row for a key (a Slurm job, a gateway
    request, a Slurm workload) depends only on the records of that key recomputes, in a daily
    run, only the keys the batches landed since the last build name, from every record of
    those keys, and keeps the rows of every other key. It reads landed records, or the rows
    of a model kept per key before it, whose batch_id is the batch of the report that won: a
    row changed by this build holds a new batch, and a report that lost to an older one
    changes no row and names no key downstream. Besides those it may read only the policy
    snapshot and the secrets: a change of either makes every keyed model whole
    (gpuledger.core.incremental.keyed_fingerprint). The build runner names the new batches in
    GPULEDGER_KEYED_BATCHES (`id,id,...`, or `-` for none;
    gpuledger.core.incremental.Window.keyed). -#}

{#- The batches whose keys this run of a by_key model recomputes, or none when it is made
    whole: no batches named (dbt run by hand, a unit test, Spark, a full refresh), no table
    yet, or a model not materialized by_key (its query would keep only those keys' rows). -#}
{% macro keyed_batches() -%}
    {%- if not execute or this is none or config.get('materialized') != 'by_key' -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set value = env_var('GPULEDGER_KEYED_BATCHES', '') -%}
    {%- if not value or target.type != 'duckdb'
        or load_cached_relation(this) is none or should_full_refresh() -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set batches = [] -%}
    {%- for batch in value.split(',') if batch and batch != '-' -%}
        {%- if not modules.re.fullmatch('[0-9a-f]{1,64}', batch) -%}
            {{ exceptions.raise_compiler_error("GPULEDGER_KEYED_BATCHES: not a batch id: " ~ batch) }}
        {%- endif -%}
        {%- do batches.append(batch) -%}
    {%- endfor -%}
    {{ return(batches) }}
{%- endmacro %}

{#- A predicate on the records of `relation` (a raw source, or a model kept per key) keeping
    the records of the keys (`key`, its columns) this run recomputes: those the new batches
    (keyed_batches) name, every record of them whatever batch holds it, and those `also`
    selects (a query of the same columns, where `__keyed_batches__` stands for the new
    batches' ids: the keys a new batch changes without naming them); `true` when the model
    is made whole. On a raw source the batch filter is on a column each batch's file holds
    one value of, so DuckDB reads only the new batches' files to find the keys. -#}
{% macro keyed(relation, key, also=none) -%}
    {%- set batches = gpuledger.keyed_batches() -%}
    {%- if batches is none -%}
        true
    {%- elif not batches -%}
        false
    {%- else -%}
        {%- set named -%}
            {%- for batch in batches -%}
                '{{ batch }}'{{ ', ' if not loop.last }}
            {%- endfor -%}
        {%- endset -%}
        ({{ key | join(', ') }}) in (
            select {{ key | join(', ') }}
            from {{ relation }}
            where batch_id in ({{ named }})
            {%- if also is not none %}
            union all
            {{ also | replace('__keyed_batches__', named) }}
            {%- endif %}
        )
    {%- endif -%}
{%- endmacro %}

{#- The config of a model kept per key: `key`, the columns of its rows that name one
    record key (the by_key materialization deletes the rows of the keys it recomputes). -#}
{% macro by_key_config(key) -%}
    {{ return({'materialized': 'by_key', 'unique_key': key}) }}
{%- endmacro %}
