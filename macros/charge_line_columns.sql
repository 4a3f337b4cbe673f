{#- The columns of a charge line, in the published order (fact_chargeback, the ledger's
    chargeback_lines, gpuledger/core/ledger.py LINE_COLUMNS): `charge_line_columns() | join(', ')`. -#}
{% macro charge_line_columns() -%}
    {{ return([
        'charge_line_id', 'period', 'tenant_id', 'charge_component', 'gpu_class', 'quantity',
        'unit', 'unit_price', 'amount', 'currency', 'rate_card_version', 'confidence',
        'charge_class', 'description'
    ]) }}
{%- endmacro %}
