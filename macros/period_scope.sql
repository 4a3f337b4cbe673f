{#- The periods a build leaves as they are (gpuledger.core.period_scope): closed periods that
    no batch landed since the last successful build touches, named by the
    build runner in GPULEDGER_FROZEN_PERIODS (`YYYY-MM,YYYY-MM`). The models built by period
    (the by_period materialization) keep those periods' rows and compute the others. Empty in
    a unit test, or when the variable names none (dbt run by hand, a full refresh):
    every period is computed, and so is every period of a model whose table is made whole (it
    has none yet, or a full refresh). Read when the model runs, never while dbt parses. On
    Spark nothing sets the variable but the user: the close and its record of frozen periods
    are DuckDB's (`gpuledger.core.period_scope`). -#}
{% macro frozen_periods() -%}
    {#- a model made whole (no table yet, a full refresh) computes every period -#}
    {%- if execute and this is not none and load_cached_relation(this) is not none
        and not should_full_refresh() -%}
        {{ return(gpuledger.named_frozen_periods()) }}
    {%- endif -%}
    {{ return([]) }}
{%- endmacro %}

{#- The periods GPULEDGER_FROZEN_PERIODS names (none while dbt parses). -#}
{% macro named_frozen_periods() -%}
    {%- set value = env_var('GPULEDGER_FROZEN_PERIODS', '') if execute else '' -%}
    {%- set periods = [] -%}
    {%- for period in value.split(',') if period -%}
        {%- if not modules.re.fullmatch('[0-9]{4}-[0-9]{2}', period) -%}
            {{ exceptions.raise_compiler_error("GPULEDGER_FROZEN_PERIODS: not a period: " ~ period) }}
        {%- endif -%}
        {%- do periods.append(period) -%}
    {%- endfor -%}
    {{ return(periods) }}
{%- endmacro %}

{#- `column` not in the periods `frozen` (`true` when there are none). -#}
{% macro not_in_periods(column, frozen) -%}
    {%- if frozen -%}
        {{ column }} not in (
            {%- for period in frozen -%}
                '{{ period }}'{{ ', ' if not loop.last }}
            {%- endfor -%}
        )
    {%- else -%}
        true
    {%- endif -%}
{%- endmacro %}

{#- For a data test of `relation` (gpuledger.get_where_subquery): when it is a model built by
    period and the build keeps frozen periods, the predicate keeping the rows of the periods
    the build computed, so that the test checks the rows the build wrote (the frozen periods'
    rows were checked by the build that computed them); '' otherwise. The build names frozen
    periods only when every model built by period has its table (gpuledger.core.period_scope),
    so none of them is made whole while a test reads fewer periods. A unique key of such a
    model names its period (a segment's start, an interval's start), so duplicates are found
    among the computed periods' rows. -#}
{% macro computed_periods_predicate(relation) -%}
    {%- set frozen = gpuledger.named_frozen_periods() -%}
    {%- set node = graph.nodes.get('model.' ~ project_name ~ '.' ~ relation.identifier)
        if frozen and relation.identifier else none -%}
    {%- if node and node.config.materialized == 'by_period' and node.schema == relation.schema -%}
        {{ return(gpuledger.not_in_periods(node.config.period_column, frozen)) }}
    {%- endif -%}
    {{ return('') }}
{%- endmacro %}

{#- A predicate keeping the rows of the periods this run computes (`column` a YYYY-MM period):
    `true` when every period is computed. A model built by period filters its inputs with it
    (so the frozen periods are not computed); the materialization filters the model's rows
    with it again. -#}
{% macro live_period(column) -%}
    {{ gpuledger.not_in_periods(column, gpuledger.frozen_periods()) }}
{%- endmacro %}

{#- The config of a model built by period: the by_period materialization
    (macros/materializations/by_period.sql), on Spark a Parquet table partitioned by the
    period. -#}
{% macro by_period_config(period_column='period') -%}
    {{ return(gpuledger.partitioned_by(
        {'materialized': 'by_period', 'period_column': period_column}, period_column
    )) }}
{%- endmacro %}
