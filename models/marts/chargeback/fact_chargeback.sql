{#- One row per period, tenant, charge component, GPU class (and rate card version and unit
    price, when a rate changed within the period). A closed period's rows come from the
    append-only published ledger, unchanged; an open period's rows are provisional: its charge
    lines plus the Correction lines that late evidence for an earlier closed period produced
    (int_correction_lines). A reopened period is open again until its next close. -#}
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

open_lines as (
    select
        charge_line_id,
        period,
        tenant_id,
        charge_component,
        gpu_class,
        quantity,
        unit,
        unit_price,
        amount,
        currency,
        rate_card_version,
        confidence,
        charge_class,
        description
    from provisional
    union all
    select
        charge_line_id,
        period,
        tenant_id,
        charge_component,
        gpu_class,
        quantity,
        unit,
        unit_price,
        amount,
        currency,
        rate_card_version,
        confidence,
        charge_class,
        description
    from corrections
),

provisional_lines as (
    select
        open_lines.*,
        'provisional' as status,
        cast(null as {{ dbt.type_string() }}) as close_id
    from open_lines
    where open_lines.period not in (select closed.period from closed)
),

closed_lines as (
    select published.*
    from published
    inner join closed
        on published.close_id = closed.close_id
),

final as (
    select
        charge_line_id,
        period,
        tenant_id,
        charge_component,
        gpu_class,
        quantity,
        unit,
        unit_price,
        amount,
        currency,
        rate_card_version,
        confidence,
        charge_class,
        description,
        status,
        close_id
    from provisional_lines
    union all
    select
        charge_line_id,
        period,
        tenant_id,
        charge_component,
        gpu_class,
        quantity,
        unit,
        unit_price,
        amount,
        currency,
        rate_card_version,
        confidence,
        charge_class,
        description,
        status,
        close_id
    from closed_lines
)

select * from final
