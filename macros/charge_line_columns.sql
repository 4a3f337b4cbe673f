{#- The columns of a published charge line: the contract of marts.fact_chargeback
    (models/marts/chargeback/_chargeback__models.yml), the ledger's one column list, read
    from the graph (gpuledger/core/ledger/schema.py reads the same YAML). `with_types` gives
    (name, data_type) pairs; `publication=false` leaves out status and close_id, which a close
    adds. Empty while dbt parses (no SQL runs then). -#}
{% macro charge_line_columns(publication=true, with_types=false) -%}
    {%- set columns = [] -%}
    {%- if execute -%}
        {%- set contract = graph.nodes['model.gpuledger.fact_chargeback'].columns -%}
        {%- for name, column in contract.items() -%}
            {%- if publication or name not in ('status', 'close_id') -%}
                {%- do columns.append((name, column.data_type) if with_types else name) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return(columns) }}
{%- endmacro %}
