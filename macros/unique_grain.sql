{#- A generic data test: no two rows of the model share the values of `columns` (a null
    equals a null, as in a group by). Returns each repeated grain with its row count. Where a
    surrogate key would hash the grain only for its unique test, this checks the grain
    itself. In two steps, so that the large group by holds one 64-bit number a row, not the
    grain's strings: the hashes of the grain that repeat, then the grains of only those rows
    (a repeated grain always repeats its hash; a hash two grains share is let through by the
    second step). Over a 4,096-GPU month of staging (177M rows) this took 13.0 s where the
    group by on the columns took 46.3 s (benchmarks/results.md, "The grain test"). -#}
{% test unique_grain(model, columns) %}
with

repeated_hashes as (
    select {{ gpuledger.grain_hash(columns) }} as grain_hash
    from {{ model }}
    group by {{ gpuledger.grain_hash(columns) }}
    having count(*) > 1
)

select
    {{ columns | join(', ') }},
    count(*) as row_count
from {{ model }}
where {{ gpuledger.grain_hash(columns) }} in (select grain_hash from repeated_hashes)
group by {{ columns | join(', ') }}
having count(*) > 1
{% endtest %}

{#- A 64-bit hash of `columns` (nulls hash alike), for unique_grain. -#}
{% macro grain_hash(columns) -%}
    {{ return(adapter.dispatch('grain_hash', 'gpuledger')(columns)) }}
{%- endmacro %}

{% macro default__grain_hash(columns) -%}
    hash({{ columns | join(', ') }})
{%- endmacro %}

{% macro spark__grain_hash(columns) -%}
    xxhash64({{ columns | join(', ') }})
{%- endmacro %}
