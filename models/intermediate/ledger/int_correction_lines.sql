{{ config(materialized='view') }}
{#- Adjustment lines (charge_class Correction) for closed periods that late evidence touches.
    A batch is late for a close when the close was not computed from it (ledger.close_batches)
    and its evidence span overlaps the closed period. For each such close, the period is
    recomputed from every landed batch (int_charge_lines) and the difference against the
    published lines, less the corrections of that close already published by later closes
    that still stand (a reopened close settles nothing), becomes lines of the next open period, keyed like a charge line and naming the original
    period and close. The closed rows never change. A view: the ledger is read live. -#}
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

close_batches as (
    select * from {{ ref('stg_ledger__close_batches') }}
),

batches as (
    select * from {{ ref('stg_landing__batches') }}
),

validations as (
    select * from {{ ref('stg_ledger__batch_validations') }}
),

closed_windows as (
    select
        period,
        close_id,
        cast(period || '-01 00:00:00' as timestamp) as period_start_at
    from closed
),

late_evidence as (
    select distinct
        closed_windows.period,
        closed_windows.close_id,
        closed_windows.period_start_at
    from closed_windows
    inner join validations
        on
            closed_windows.period_start_at <= validations.last_evidence_at
            and {{ gpuledger.add_months('closed_windows.period_start_at', 1) }} > validations.first_evidence_at
    inner join batches
        on validations.batch_id = batches.batch_id
    left join close_batches
        on
            closed_windows.close_id = close_batches.close_id
            and validations.batch_id = close_batches.batch_id
    where validations.validation_outcome = 'passed' and close_batches.batch_id is null
),

candidates as (
    -- the next open period after P is P + 1 month, or the month after a later closed period
    select
        late_evidence.period as corrected_period,
        {{ gpuledger.add_months('late_evidence.period_start_at', 1) }} as candidate_start_at
    from late_evidence
    union all
    select
        late_evidence.period as corrected_period,
        {{ gpuledger.add_months('closed_windows.period_start_at', 1) }} as candidate_start_at
    from late_evidence
    inner join closed_windows
        on late_evidence.period < closed_windows.period
),

next_open as (
    select
        candidates.corrected_period,
        {{ gpuledger.period_of('min(candidates.candidate_start_at)') }} as target_period
    from candidates
    left join closed
        on {{ gpuledger.period_of('candidates.candidate_start_at') }} = closed.period
    where closed.period is null
    group by candidates.corrected_period
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
            'next_open.target_period', "'Correction'", 'differences.corrected_close_id',
            'differences.tenant_id', 'differences.charge_component', 'differences.gpu_class',
            "coalesce(differences.rate_card_version, '')",
            "coalesce(cast(differences.unit_price as " ~ dbt.type_string() ~ "), '')"
        ]) }} as charge_line_id,
        next_open.target_period as period,
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
    inner join next_open
        on differences.corrected_period = next_open.corrected_period
)

select * from final
