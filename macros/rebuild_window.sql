{#- A predicate keeping the rows of `column` an incremental model's run rebuilds: the days
    [start, end) the build runner names in GPULEDGER_REBUILD_WINDOW (`YYYY-MM-DD/YYYY-MM-DD`,
    gpuledger.core.incremental), or the model's own where GPULEDGER_REBUILD_MODEL_WINDOWS
    names fewer for it (`model=YYYY-MM-DD/YYYY-MM-DD,...`: staging rebuilds only the days of
    the new samples, the roll-up the hours they reach too), widened by `before_seconds` and
    `after_seconds` for a model
    that reads its input with a halo (neighbouring samples, an interval that runs into the
    next hour). A full refresh names every day (or, rebuilt in pieces, its first piece's).
    `true` in a unit test or when no window is named (every day is rebuilt: dbt run by
    hand). The bounds are literals, so a Parquet scan skips the row groups outside them. The
    variable is read only when the model runs, never while dbt parses (a new window is not a
    project change).
    On DuckDB a run that rebuilds its window in pieces (the by_day materialization, one piece
    after another in one dbt run) narrows the bounds to the piece it is building: the piece's
    start and end (midnights, or whole hours of a day cut in parts), in the connection's
    variables gpuledger_piece_start and gpuledger_piece_end (gpuledger.set_rebuild_piece);
    without them the window's own bounds hold. Either way the bounds are constants when
    DuckDB plans the query, so the Parquet row groups outside them are still skipped. -#}
{% macro rebuild_window(column, before_seconds=0, after_seconds=0) -%}
    {#- a unit test has no relation of its own (`this`): the model is built whole there -#}
    {%- set rebuilding = execute and this is not none -%}
    {%- set value = gpuledger.days_of(
        this.identifier, 'GPULEDGER_REBUILD_WINDOW', 'GPULEDGER_REBUILD_MODEL_WINDOWS'
    ) if rebuilding else '' -%}
    {%- if value and '/' in value -%}
        {%- set parts = value.split('/') -%}
        {%- set day = modules.datetime.datetime.strptime -%}
        {%- set start = day(parts[0], '%Y-%m-%d') - modules.datetime.timedelta(seconds=before_seconds) -%}
        {%- set end = day(parts[1], '%Y-%m-%d') + modules.datetime.timedelta(seconds=after_seconds) -%}
        {%- set lower = "cast('" ~ start.strftime("%Y-%m-%d %H:%M:%S") ~ "' as timestamp)" -%}
        {%- set upper = "cast('" ~ end.strftime("%Y-%m-%d %H:%M:%S") ~ "' as timestamp)" -%}
        {%- if target.type == 'duckdb' -%}
            {%- set lower = "coalesce(cast(getvariable('gpuledger_piece_start') as timestamp) - to_seconds("
                ~ before_seconds ~ "), " ~ lower ~ ")" -%}
            {%- set upper = "coalesce(cast(getvariable('gpuledger_piece_end') as timestamp) + to_seconds("
                ~ after_seconds ~ "), " ~ upper ~ ")" -%}
        {%- endif -%}
        {{ column }} >= {{ lower }}
        and {{ column }} < {{ upper }}
    {%- else -%}
        true
    {%- endif -%}
{%- endmacro %}

{#- Whether the build names no day to rebuild (GPULEDGER_REBUILD_NOTHING, set by
    gpuledger.core.incremental.Window.names_nothing: nothing new landed, or the window was
    rebuilt in pieces before the build). Its window is then one day without evidence, so a
    run would delete no row and insert none; the by_day materialization leaves the table as
    it is instead of running the query, which on the landed Parquet (staging) read the files
    of every batch to find that day empty: a cost that grew with the history. -#}
{% macro rebuilds_nothing() -%}
    {{ return(env_var('GPULEDGER_REBUILD_NOTHING', '') == '1') }}
{%- endmacro %}

{#- The days (`YYYY-MM-DD/YYYY-MM-DD`) of `model_name` a build names in the variable
    `models_variable` (`model=YYYY-MM-DD/YYYY-MM-DD,...`: a model's own days where they are
    fewer than the window's), else in `window_variable`; '' when it names none. What a run
    rebuilds (GPULEDGER_REBUILD_WINDOW, GPULEDGER_REBUILD_MODEL_WINDOWS) and what its data
    tests check (GPULEDGER_CHECKED_WINDOW, GPULEDGER_CHECKED_MODEL_WINDOWS). -#}
{% macro days_of(model_name, window_variable, models_variable) -%}
    {%- set found = [env_var(window_variable, '')] -%}
    {%- for entry in env_var(models_variable, '').split(',') -%}
        {%- if entry.split('=')[0] == model_name and '/' in entry -%}
            {%- do found.append(entry.split('=')[1]) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(found[-1]) }}
{%- endmacro %}

{#- The config of an incremental model rebuilt by whole days of `day_column`: the by_day
    materialization (macros/materializations/by_day.sql) replaces the days of the window, every
    one of them (a day the query no longer returns keeps no rows): DuckDB deletes them and
    inserts the query's rows; Spark drops those day partitions of a Parquet table partitioned
    by the day and inserts. With `replace_column` (an hour of the row, a timestamp) DuckDB
    replaces the rows by it, so a piece of whole hours replaces its hours, not its days;
    Spark's partitions are still the days. -#}
{% macro by_day_incremental_config(day_column, replace_column=none) -%}
    {%- set config = {'materialized': 'by_day', 'day_column': day_column} -%}
    {%- if replace_column -%}
        {%- do config.update({'replace_column': replace_column}) -%}
    {%- endif -%}
    {{ return(gpuledger.partitioned_by(config, day_column)) }}
{%- endmacro %}

{#- The pieces the by_day materialization rebuilds `model`'s window in, one after another:
    [(start, end, batches), ...] of `YYYY-MM-DD` days or `YYYY-MM-DDTHH:MM:SS` instants, from
    GPULEDGER_REBUILD_PIECES (a JSON object of model name to `start/end` strings,
    gpuledger.core.incremental.pieces_environment), with the landed batches the piece reads
    where GPULEDGER_REBUILD_PIECE_BATCHES names them (a JSON object of model name to a list of
    batch ids per piece), else none;
    none when it names no pieces of the model (the window is built in one statement). -#}
{% macro rebuild_pieces(model_name) -%}
    {%- set value = env_var('GPULEDGER_REBUILD_PIECES', '') if execute else '' -%}
    {%- set named = env_var('GPULEDGER_REBUILD_PIECE_BATCHES', '') if execute else '' -%}
    {%- set batches = (fromjson(named) or {}).get(model_name) if named else none -%}
    {%- set pieces = [] -%}
    {%- if value -%}
        {%- for piece in (fromjson(value) or {}).get(model_name, []) -%}
            {%- set bounds = piece.split('/') -%}
            {%- set piece_batches = batches[loop.index0] if batches is not none else none -%}
            {%- do pieces.append((bounds[0], bounds[1], piece_batches)) -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return(pieces) }}
{%- endmacro %}

{#- The statement that makes the connection's next rebuild_window bounds one piece's start
    and end (`YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SS`), and its batches (rebuild_batches) when
    it names them, or, without a piece, the window's own again. -#}
{% macro set_rebuild_piece(piece=none) -%}
    {%- if piece is none -%}
        reset variable gpuledger_piece_start;
        reset variable gpuledger_piece_end;
        reset variable gpuledger_piece_batches
    {%- else -%}
        set variable gpuledger_piece_start = cast('{{ piece[0] }}' as timestamp);
        set variable gpuledger_piece_end = cast('{{ piece[1] }}' as timestamp)
        {%- if piece[2] is not none -%};
        set variable gpuledger_piece_batches = cast([
            {%- for batch in piece[2] -%}
                '{{ batch }}'{{ ', ' if not loop.last }}
            {%- endfor -%}
        ] as varchar[])
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}

{#- The landed batches (a query of one column, batch_id) whose points in `relation` an
    incremental model's run reads: on DuckDB, when its pieces name their batches
    (rebuild_pieces: the batches with samples in the piece, from their Parquet statistics),
    those, so that neither the piece's points are read twice nor every landed batch's series;
    else the batches of the points in the run's window, read from `relation`. -#}
{% macro rebuild_batches(relation, column) -%}
    {%- set rebuilding = execute and this is not none -%}
    {%- set pieces = gpuledger.rebuild_pieces(this.identifier) if rebuilding else [] -%}
    {%- if target.type == 'duckdb' and pieces and pieces[0][2] is not none -%}
        select unnest(getvariable('gpuledger_piece_batches')) as batch_id
    {%- else -%}
        select distinct batch_id
        from {{ relation }}
        where {{ gpuledger.rebuild_window(column) }}
    {%- endif -%}
{%- endmacro %}
