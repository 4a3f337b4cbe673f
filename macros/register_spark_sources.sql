{#- On Spark, the sources dbt-duckdb reads through `meta.external_location` (Parquet batches
    under $GPULEDGER_HOME/raw, the policy snapshot's CSV files, the validation records) become
    tables over the same files: `create table ... using parquet|csv location`, refreshed so a
    new batch is seen. The ledger tables are created by create_ledger_tables. Renders to
    nothing on DuckDB. -#}
{% macro register_spark_sources() %}
    {%- if target.type == 'spark' and execute -%}
        {%- set ddl -%}
        {%- set schemas = [] -%}
        {%- for node in graph.sources.values() -%}
            {%- set location = node.meta.get('external_location') or node.source_meta.get('external_location') -%}
            {%- if location -%}
                {%- set path = location.split("'")[1] | replace('{name}', node.name) -%}
                {#- on DuckDB dbt reads the files from inside the home (gpuledger-dbt) -#}
                {%- if not path.startswith('/') -%}
                    {%- set path = env_var('GPULEDGER_HOME', '.gpuledger') ~ '/' ~ path -%}
                {%- endif -%}
                {%- if node.schema not in schemas -%}
                    {%- do schemas.append(node.schema) -%}
                    create schema if not exists {{ node.schema }};
                {%- endif %}
                {%- if path.endswith('.csv') %}
                    create table if not exists {{ node.schema }}.{{ node.identifier }}
                    using csv options (header 'true', inferSchema 'false', path '{{ path }}');
                {%- else %}
                    create table if not exists {{ node.schema }}.{{ node.identifier }}
                    using parquet options (mergeSchema 'true', path '{{ path | replace('/*.parquet', '') }}');
                {%- endif %}
                refresh table {{ node.schema }}.{{ node.identifier }};
            {%- endif -%}
        {%- endfor -%}
        {%- endset -%}
        {{ gpuledger.run_statements(ddl) }}
    {%- endif -%}
{% endmacro %}
