{#- The DuckDB materialization of the incremental models rebuilt by whole days
    (gpuledger.by_day_incremental_config): a run deletes the days of its window
    (gpuledger.rebuild_window: the model's days, every day when none is named) and inserts
    the model's rows straight from its query, in one transaction. dbt's own incremental
    materialization first writes the query into a temporary table and then copies it
    (delete+insert by the day column): a copy of every row rebuilt, about a sixth of a
    telemetry piece's run.
    A window's days are replaced whole, so a day whose evidence is gone (a batch quarantined
    after it was built) keeps no stale rows. The first run, and a full refresh, create the
    table from the query. The rows are inserted by column name: a query column the table lacks
    fails the run (a table column the query lacks is left null), and a changed model rebuilds
    everything anyway (gpuledger.core.incremental.FINGERPRINT).
    A window too large for one statement (a fleet month built the first time) comes with its
    pieces (gpuledger.rebuild_pieces): each piece's days are replaced in a transaction of their
    own, one after another in this one run (dbt starts once, not once a piece), the first of a
    new table creating it. A day too large for one piece comes in pieces of whole hours, in
    order: the piece that holds the day's midnight deletes the whole day (its day column, a
    date, is within that piece's bounds) and inserts its hours; the day's later pieces delete
    nothing and insert theirs, so the day is still replaced whole. A model whose rows are
    hours names their hour in `replace_column` (by_day_incremental_config): each piece then
    replaces the hours within its bounds, so a piece may start or end within a day (the
    hourly roll-up of a daily run rebuilds the day before the new one from the hour the new
    samples reach back to, gpuledger.core.incremental.HOURLY_MODELS). A build whose window
    names no day (gpuledger.rebuilds_nothing) leaves the table as it is. -#}
{% materialization by_day, adapter='duckdb' %}
    {%- set day_column = config.require('day_column') -%}
    {#- the rows a piece replaces: those of its days, or of its hours (replace_column) -#}
    {%- set replace_column = config.get('replace_column') or day_column -%}
    {%- set existing_relation = load_cached_relation(this) -%}
    {%- set target_relation = this.incorporate(type='table') -%}
    {%- set rebuild_whole = existing_relation is none or should_full_refresh() -%}
    {#- a window that names no day: the table stays as it is (gpuledger.rebuilds_nothing) -#}
    {%- set nothing = not rebuild_whole and gpuledger.rebuilds_nothing() -%}

    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}

    {%- if rebuild_whole and existing_relation is not none -%}
        {% do adapter.drop_relation(existing_relation) %}
    {%- endif %}

    {%- set pieces = [] if nothing else gpuledger.rebuild_pieces(this.identifier) -%}
    {%- for piece in pieces[:-1] -%}
        {% call statement('piece_' ~ loop.index) -%}
            {{ gpuledger.set_rebuild_piece(piece) }};
            {{ gpuledger.replace_rows(target_relation, compiled_code, rebuild_whole and loop.first, gpuledger.rebuild_window(replace_column)) }}
        {%- endcall %}
        {% do adapter.commit() %}
        {{ print('gpuledger rebuilt piece: ' ~ this.identifier ~ ' ' ~ piece[0] ~ '/' ~ piece[1]) }}
    {%- endfor %}

    {% call statement('main') -%}
        {%- if nothing -%}
            select 0 as rows_replaced
        {%- else -%}
        {%- if pieces -%}
            {{ gpuledger.set_rebuild_piece(pieces[-1]) }};
        {%- endif %}
        {{ gpuledger.replace_rows(target_relation, compiled_code, rebuild_whole and pieces | length < 2, gpuledger.rebuild_window(replace_column)) }}
        {%- if pieces -%};
            {{ gpuledger.set_rebuild_piece() }}
        {%- endif %}
        {%- endif %}
    {%- endcall %}

    {%- if pieces -%}
        {{ print('gpuledger rebuilt piece: ' ~ this.identifier ~ ' ' ~ pieces[-1][0] ~ '/' ~ pieces[-1][1]) }}
    {%- endif %}
    {{ gpuledger.commit_table(target_relation, post_hooks) }}

    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}

{#- The statement replacing the rows of `relation` that `replaced` (a predicate) keeps by the
    model's rows (`sql`), in one transaction with no temporary copy; with `filtered`, only the
    model's rows `replaced` keeps are inserted. `create`: the table is new, made from all of
    them. The by_day materialization replaces its window's days, by_period the periods it
    computes. -#}
{% macro replace_rows(relation, sql, create, replaced, filtered=false) -%}
    {%- if create -%}
        {{ create_table_as(False, relation, sql) }}
    {%- else -%}
        delete from {{ relation }}
        where {{ replaced }};
        insert into {{ relation }} by name
        select * from (
            {{ sql }}
        ) as replacing_rows
        {%- if filtered %}
        where {{ replaced }}
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}

{#- The same on Spark: a Parquet table partitioned by the day column
    (gpuledger.by_day_incremental_config). A run replaces the partition of every day of its
    window the table holds by the model's rows (macros/materializations/spark_partitions.sql;
    its query keeps to the window, not filtered again, as on DuckDB): a day whose evidence is
    all gone keeps no rows, as the DuckDB delete leaves none, where dbt's insert_overwrite
    replaced only the days the query returned. The other days' partitions, their files
    included, are left as they are. The whole window is one statement: Spark takes no pieces
    (GPULEDGER_REBUILD_PIECES names DuckDB's). The first run, a full refresh and a run that
    names no window make the table whole from the query. -#}
{% materialization by_day, adapter='spark' %}
    {%- set day_column = config.require('day_column') -%}
    {%- set existing_relation = load_relation(this) -%}
    {%- set target_relation = this.incorporate(type='table') -%}
    {%- set window = gpuledger.rebuild_window(day_column) -%}
    {%- set rebuild_whole = existing_relation is none or should_full_refresh() or window == 'true' -%}

    {{ run_hooks(pre_hooks) }}

    {%- if rebuild_whole -%}
        {{ gpuledger.make_whole(existing_relation, target_relation, compiled_code) }}
    {%- else -%}
        {%- set held = run_query(
            'select distinct cast(' ~ day_column ~ ' as string) from ' ~ target_relation
            ~ ' where ' ~ window
        ).columns[0].values() -%}
        {{ gpuledger.spark_replace_partitions(target_relation, day_column, held, compiled_code) }}
    {%- endif %}

    {% do persist_docs(target_relation, model) %}
    {{ run_hooks(post_hooks) }}

    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
