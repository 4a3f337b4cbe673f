{#- The latest landed version of each record of `relation` (a raw table's import CTE, or a
    CTE over it that adds the columns the order needs): its landed records
    (gpuledger.landed_records) ranked within `key` (the columns naming one record), keeping
    rank 1 (column `landed_rank`). The default order is the latest extraction, then the
    latest batch, then the last line; `prefer` puts the record's own rule first (stg_slurm__jobs:
    `is_ended desc`, a final state wins), `order_by` replaces the whole order (the first
    sighting of a version: `observed_at, extracted_at, batch_id, source_line`).
    `across_versions` maps a column name to an aggregate over all landed versions of the
    record (`{'first_observed_at': 'min(observed_at)'}`). -#}
{% macro latest_landed(relation, key, prefer=[], order_by=none, where=none, across_versions={}) -%}
    {%- set partition = key | join(', ') -%}
    {%- set order = order_by or (prefer + ['extracted_at desc', 'batch_id desc', 'source_line desc']) | join(', ') -%}
    select * from (
        select
            *,
            {%- for column, aggregate in across_versions.items() %}
            {{ aggregate }} over (partition by {{ partition }}) as {{ column }},
            {%- endfor %}
            row_number() over (partition by {{ partition }} order by {{ order }}) as landed_rank
        from ({{ gpuledger.landed_records(relation, where) }}) as landed
    ) as ranked
    where landed_rank = 1
{%- endmacro %}
