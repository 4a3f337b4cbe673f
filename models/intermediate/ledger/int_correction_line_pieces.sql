{{ config(materialized='view') }}
{#- The evidence behind each Correction line, open or published by a close that stands: the
    line of the corrected period as recomputed now (int_charge_lines), less the line its close
    published, less the corrections of that close that other standing closes published before
    (for an open Correction: any standing close), matched on the line's grain. For an open
    Correction these are the movements int_correction_lines adds up; for a published one they
    add up to it while no further evidence for the corrected period has landed. A view: the
    ledger is read live. -#}
with

corrections as (
    select * from {{ ref('int_correction_lines') }}
),

charges as (
    select * from {{ ref('int_charge_lines') }}
),

published as (
    select * from {{ ref('stg_ledger__chargeback_lines') }}
),

closed as (
    select * from {{ ref('int_closed_periods') }}
),

correction_lines as (
    select
        charge_line_id,
        tenant_id,
        charge_component,
        gpu_class,
        unit,
        currency,
        coalesce(rate_card_version, '') as rate_key,
        coalesce(cast(unit_price as {{ dbt.type_string() }}), '') as price_key,
        corrects_period,
        corrects_close_id,
        cast(null as timestamp) as published_at
    from corrections
    union all
    select
        published.charge_line_id,
        published.tenant_id,
        published.charge_component,
        published.gpu_class,
        published.unit,
        published.currency,
        coalesce(published.rate_card_version, '') as rate_key,
        coalesce(cast(published.unit_price as {{ dbt.type_string() }}), '') as price_key,
        published.corrects_period,
        published.corrects_close_id,
        closed.closed_at as published_at
    from published
    inner join closed
        on published.close_id = closed.close_id
    where published.charge_class = 'Correction'
),

ledger_lines as (
    select
        published.*,
        closed.closed_at as standing_since_at
    from published
    left join closed
        on published.close_id = closed.close_id
),

restated as (
    select
        correction_lines.charge_line_id,
        'restated_line' as evidence_kind,
        charges.charge_line_id as related_charge_line_id,
        'recomputed ' || charges.period || ' line, from every landed batch' as policy_source,
        charges.unit_price,
        charges.quantity,
        charges.amount
    from correction_lines
    inner join charges
        on
            correction_lines.corrects_period = charges.period
            and correction_lines.tenant_id = charges.tenant_id
            and correction_lines.charge_component = charges.charge_component
            and correction_lines.gpu_class = charges.gpu_class
            and correction_lines.unit = charges.unit
            and correction_lines.currency = charges.currency
            and correction_lines.rate_key = coalesce(charges.rate_card_version, '')
            and correction_lines.price_key = coalesce(cast(charges.unit_price as {{ dbt.type_string() }}), '')
),

as_published as (
    select
        correction_lines.charge_line_id,
        case
            when ledger_lines.corrects_close_id is null then 'published_line'
            else 'published_correction'
        end as evidence_kind,
        ledger_lines.charge_line_id as related_charge_line_id,
        'ledger: close ' || ledger_lines.close_id as policy_source,
        ledger_lines.unit_price,
        -ledger_lines.quantity as quantity,
        -ledger_lines.amount as amount
    from correction_lines
    inner join ledger_lines
        on
            correction_lines.tenant_id = ledger_lines.tenant_id
            and correction_lines.charge_component = ledger_lines.charge_component
            and correction_lines.gpu_class = ledger_lines.gpu_class
            and correction_lines.unit = ledger_lines.unit
            and correction_lines.currency = ledger_lines.currency
            and correction_lines.rate_key = coalesce(ledger_lines.rate_card_version, '')
            and correction_lines.price_key = coalesce(cast(ledger_lines.unit_price as {{ dbt.type_string() }}), '')
    where
        (
            ledger_lines.close_id = correction_lines.corrects_close_id
            and ledger_lines.corrects_close_id is null
        )
        or (
            ledger_lines.corrects_close_id = correction_lines.corrects_close_id
            and ledger_lines.standing_since_at < coalesce(
                correction_lines.published_at, cast('{{ var("open_interval_end") }}' as timestamp)
            )
        )
),

final as (
    select * from restated
    union all
    select * from as_published
)

select * from final
