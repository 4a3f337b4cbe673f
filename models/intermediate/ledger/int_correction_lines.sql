{{ config(materialized='view') }}
{#- Adjustment lines (charge_class Correction) for closed periods that late evidence touches
    (int_late_evidence: a batch the close was not computed from whose evidence span overlaps
    the closed period, and the next open period the lines go to). For each such close, the
    period is recomputed from every landed batch (int_charge_lines) and the difference against
    the published lines, less the corrections of that close already published by later closes
    that still stand (a reopened close settles nothing), becomes lines of the next open period,
    keyed like a charge line and naming the original period and close. The closed rows never
    change. A view: the ledger is read live. -#}
with

charges as (
    select * from {{ ref('int_charge_lines') }}
),

closed as (
    select * from {{ ref('int_closed_periods') }}
),

published as (
    select * from {{ ref('stg_ledger__chargeback_lines') }}
),

late_evidence as (
    select * from {{ ref('int_late_evidence') }}
),

restated as (
    select
        late_evidence.period as corrected_period,
        late_evidence.close_id as corrected_close_id,
        charges.tenant_id,
        charges.charge_component,
        charges.gpu_class,
        charges.unit,
        charges.currency,
        charges.rate_card_version,
        charges.unit_price,
        charges.confidence,
        charges.quantity,
        charges.amount
    from charges
    inner join late_evidence
        on charges.period = late_evidence.period
),

as_published as (
    select
        late_evidence.period as corrected_period,
        late_evidence.close_id as corrected_close_id,
        published.tenant_id,
        published.charge_component,
        published.gpu_class,
        published.unit,
        published.currency,
        published.rate_card_version,
        published.unit_price,
        published.confidence,
        -published.quantity as quantity,
        -published.amount as amount
    from published
    inner join late_evidence
        on published.close_id = late_evidence.close_id
    where published.corrects_close_id is null
),

already_corrected as (
    select
        late_evidence.period as corrected_period,
        late_evidence.close_id as corrected_close_id,
        published.tenant_id,
        published.charge_component,
        published.gpu_class,
        published.unit,
        published.currency,
        published.rate_card_version,
        published.unit_price,
        published.confidence,
        -published.quantity as quantity,
        -published.amount as amount
    from published
    inner join late_evidence
        on published.corrects_close_id = late_evidence.close_id
    inner join closed
        on published.close_id = closed.close_id
),

movements as (
    select * from restated
    union all
    select * from as_published
    union all
    select * from already_corrected
),

differences as (
    select
        corrected_period,
        corrected_close_id,
        tenant_id,
        charge_component,
        gpu_class,
        unit,
        currency,
        rate_card_version,
        unit_price,
        {{ gpuledger.weakest_confidence('confidence') }} as confidence,
        sum(quantity) as quantity,
        sum(amount) as amount
    from movements
    group by
        corrected_period,
        corrected_close_id,
        tenant_id,
        charge_component,
        gpu_class,
        unit,
        currency,
        rate_card_version,
        unit_price
    having sum(amount) != 0 or coalesce(sum(quantity), 0) != 0
),

final as (
    select
        {{ surrogate_key([
            'late_evidence.target_period', "'Correction'", 'differences.corrected_close_id',
            'differences.tenant_id', 'differences.charge_component', 'differences.gpu_class',
            "coalesce(differences.rate_card_version, '')",
            "coalesce(cast(differences.unit_price as " ~ dbt.type_string() ~ "), '')"
        ]) }} as charge_line_id,
        late_evidence.target_period as period,
        differences.tenant_id,
        differences.charge_component,
        differences.gpu_class,
        cast(differences.quantity as decimal(18, 6)) as quantity,
        differences.unit,
        cast(differences.unit_price as decimal(18, 6)) as unit_price,
        cast(differences.amount as decimal(18, 2)) as amount,
        differences.currency,
        differences.rate_card_version,
        differences.confidence,
        'Correction' as charge_class,
        'correction of ' || differences.corrected_period || ' (' || differences.corrected_close_id
        || '): evidence landed after the close' as description,
        differences.corrected_period as corrects_period,
        differences.corrected_close_id as corrects_close_id
    from differences
    inner join late_evidence
        on
            differences.corrected_period = late_evidence.period
            and differences.corrected_close_id = late_evidence.close_id
)

select * from final
