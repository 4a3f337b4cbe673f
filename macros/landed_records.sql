{#- The rows of `relation` (a raw table's import CTE) that belong to a manifested batch, with
    the batch's `extracted_at`: only batches stg_landing__batches lists are visible (a batch
    being written, or one validation took back out, has no manifest row). `where` filters the
    raw rows (unqualified column names). -#}
{% macro landed_records(relation, where=none) -%}
    select
        records.*,
        batches.extracted_at
    from {{ relation }} as records
    inner join {{ ref('stg_landing__batches') }} as batches
        on records.batch_id = batches.batch_id
    {%- if where %}
    where {{ where }}
    {%- endif %}
{%- endmacro %}
