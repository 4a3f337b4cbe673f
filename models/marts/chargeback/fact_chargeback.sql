{#- One row per period, tenant, charge component, GPU class (and rate card version and unit
    price, when a rate changed within the period). A closed period's rows come from the
    append-only published ledger, unchanged; an open period's rows are provisional: its charge
    lines plus the Correction lines that late evidence for an earlier closed period produced
    (int_correction_lines), which name the period and close they correct (corrects_period,
    corrects_close_id, as the ledger stores them). A reopened period is open again until its
    next close. -#}
with

provisional as (
    select * from {{ ref('int_charge_lines') }}
),

corrections as (
    select * from {{ ref('int_correction_lines') }}
),

closed as (
    select * from {{ ref('int_closed_periods') }}
),

published as (
    select * from {{ ref('stg_ledger__chargeback_lines') }}
),

{%- set line_columns = gpuledger.charge_line_columns() %}

provisional_lines as (
    {#- a provisional charge corrects nothing; a Correction names the period and close -#}
    select
        {{ line_columns | join(', ') }},
        cast(null as {{ dbt.type_string() }}) as corrects_period,
        cast(null as {{ dbt.type_string() }}) as corrects_close_id
    from provisional
    union all
    select
        {{ line_columns | join(', ') }},
        corrects_period,
        corrects_close_id
    from corrections
),

open_lines as (
    select
        provisional_lines.*,
        'provisional' as status,
        cast(null as {{ dbt.type_string() }}) as close_id
    from provisional_lines
    where provisional_lines.period not in (select closed.period from closed)
),

closed_lines as (
    select published.*
    from published
    inner join closed
        on published.close_id = closed.close_id
),

final as (
    {%- for lines in ['open_lines', 'closed_lines'] %}
    select {{ line_columns | join(', ') }}, corrects_period, corrects_close_id, status, close_id
    from {{ lines }}
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}
)

select * from final
