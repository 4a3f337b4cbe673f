{#- The published ledger lives outside the dbt-managed schemas: dbt never rebuilds it.
    `gpuledger close` appends to it (gpuledger/core/ledger.py); nothing updates or deletes. Created
    here so that the models reading it (fact_chargeback) work before the first close.
    closes: one row per close of a period; chargeback_lines: the lines each close published,
    as marts.fact_chargeback's contract declares a line (charge_line_columns); close_batches:
    the landed batches each close was computed from; close_acknowledgements: the quarantined
    records an acknowledgement let the close through with; reopens: one row per reopen. -#}
{% macro create_ledger_tables() %}
    {%- set text = dbt.type_string() -%}
    {%- set ddl -%}
    create schema if not exists ledger;
    create table if not exists ledger.closes (
        close_id {{ text }},
        period {{ text }},
        close_version integer,
        closed_at timestamp,
        approver {{ text }},
        policy_hash {{ text }},
        rate_card_version {{ text }},
        schema_version {{ text }},
        input_manifest_hash {{ text }},
        lines_sha256 {{ text }},
        line_count integer,
        total_amount decimal(18, 2)
    );
    create table if not exists ledger.chargeback_lines (
        {%- for name, data_type in gpuledger.charge_line_columns(with_types=true) %}
        {{ name }} {{ text if data_type == 'string' else data_type }}{{ ',' if not loop.last }}
        {%- endfor %}
    );
    create table if not exists ledger.close_batches (
        close_id {{ text }},
        batch_id {{ text }},
        content_sha256 {{ text }}
    );
    create table if not exists ledger.close_acknowledgements (
        close_id {{ text }},
        batch_id {{ text }},
        line_number bigint,
        file_path {{ text }},
        reason {{ text }},
        decision_reason {{ text }},
        decided_by {{ text }},
        decided_at timestamp
    );
    create table if not exists ledger.reopens (
        reopen_id {{ text }},
        period {{ text }},
        close_id {{ text }},
        reopened_at timestamp,
        reason {{ text }},
        requested_by {{ text }}
    );
    {%- endset -%}
    {{ gpuledger.run_statements(ddl) }}
{% endmacro %}

{#- `sql` (statements separated by `;`) as one hook on DuckDB; on Spark, whose session runs
    one statement per call, each statement is run here and the hook renders to nothing. -#}
{% macro run_statements(sql) %}
    {%- if target.type == 'spark' -%}
        {%- if execute -%}
            {%- for statement in sql.split(';') if statement.strip() -%}
                {%- do run_query(statement) -%}
            {%- endfor -%}
        {%- endif -%}
    {%- else -%}
        {{ sql }}
    {%- endif -%}
{% endmacro %}
