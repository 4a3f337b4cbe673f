{#- One row per charge line of fact_chargeback and piece of evidence behind it: what a tenant
    disputing a bill reads (`gpuledger explain`). The pieces are those of the line as
    recomputed now: int_charge_line_evidence for a charge line, int_correction_line_pieces for
    a Correction. For a closed period that is the recomputation of the published line, and
    is_line_reproduced says whether it still equals the published one. Per line the pieces add
    up to the recomputed line exactly (tests/dbt/assert_charge_line_evidence_adds_up.sql).
    Segments name their allocation, workload, scope, node and GPU and the batch, file and line
    they were landed from; policy rows name their policy file and key (the policy snapshot
    keeps no line numbers). Built by period (gpuledger.by_period_config), as the evidence it
    joins: a build computes the lines of the periods it computes and keeps the frozen
    periods' rows, which read the ledger as it was when they were computed; a period is not
    frozen after a ledger write that no refresh of this mart followed, nor while it holds a
    Correction of a period the build computes (gpuledger.core.period_scope). The refresh after
    a close or a reopen (`dbt run --select fact_chargeback+`) names no frozen period: every
    period is computed. -#}
{{ config(**gpuledger.by_period_config()) }}
with

lines as (
    select * from {{ ref('fact_chargeback') }}
    where {{ gpuledger.live_period('period') }}
),

line_evidence as (
    select * from {{ ref('int_charge_line_evidence') }}
    where {{ gpuledger.live_period('period') }}
),

correction_pieces as (
    {#- a Correction's pieces (a view over the ledger): only those of the lines above are
        joined -#}
    select * from {{ ref('int_correction_line_pieces') }}
),

{%- set string_type = dbt.type_string() %}
{#- the shape of a piece of evidence: int_charge_line_evidence's columns, which the
    Corrections' pieces take too -#}
{%- set evidence_columns = [
    ('charge_line_id', string_type),
    ('evidence_seq', 'bigint'),
    ('evidence_kind', string_type),
    ('segment_id', string_type),
    ('allocation_id', string_type),
    ('workload_id', string_type),
    ('source_system', string_type),
    ('scope_type', string_type),
    ('scope_key', string_type),
    ('node_name', string_type),
    ('gpu_uuid', string_type),
    ('endpoint_id', string_type),
    ('evidence_gpu_class', string_type),
    ('started_at', 'timestamp'),
    ('ended_at', 'timestamp'),
    ('capacity_fraction', 'decimal(18, 6)'),
    ('gpu_equivalents', 'decimal(18, 6)'),
    ('reserved_gpus', 'decimal(18, 6)'),
    ('gpu_hours', 'decimal(18, 6)'),
    ('guaranteed_gpu_hours', 'decimal(18, 6)'),
    ('borrowed_gpu_hours', 'decimal(18, 6)'),
    ('endpoint_share', 'decimal(20, 12)'),
    ('weight_version', string_type),
    ('productive_unit', string_type),
    ('units', 'bigint'),
    ('unit_weight', 'decimal(18, 6)'),
    ('weighted_units', 'decimal(38, 6)'),
    ('unit_price', 'decimal(18, 6)'),
    ('quantity', 'decimal(18, 6)'),
    ('amount', 'decimal(18, 2)'),
    ('related_charge_line_id', string_type),
    ('source_batch_id', string_type),
    ('source_file', string_type),
    ('source_line', 'bigint'),
    ('policy_source', string_type)
] %}

evidence as (
    select {{ evidence_columns | map(attribute=0) | join(', ') }}
    from line_evidence
    union all
    select
        {{- gpuledger.padded_columns(evidence_columns, {
            'charge_line_id': 'charge_line_id',
            'evidence_seq': 'row_number() over (partition by charge_line_id'
                ~ ' order by evidence_kind, related_charge_line_id)',
            'evidence_kind': 'evidence_kind',
            'unit_price': 'unit_price',
            'quantity': 'cast(quantity as decimal(18, 6))',
            'amount': 'cast(amount as decimal(18, 2))',
            'related_charge_line_id': 'related_charge_line_id',
            'policy_source': 'policy_source'
        }) }}
    from correction_pieces
),

recomputed as (
    select
        charge_line_id,
        sum(quantity) as quantity,
        sum(amount) as amount
    from evidence
    group by charge_line_id
),

final as (
    select
        evidence.charge_line_id || '#' || lpad(cast(evidence.evidence_seq as {{ dbt.type_string() }}), 6, '0')
            as evidence_id,
        evidence.charge_line_id,
        lines.period,
        lines.tenant_id,
        lines.charge_component,
        lines.gpu_class,
        lines.status as line_status,
        lines.close_id,
        recomputed.quantity = lines.quantity and recomputed.amount = lines.amount as is_line_reproduced,
        evidence.evidence_kind,
        evidence.segment_id,
        evidence.allocation_id,
        evidence.workload_id,
        evidence.source_system,
        evidence.scope_type,
        evidence.scope_key,
        evidence.node_name,
        evidence.gpu_uuid,
        evidence.endpoint_id,
        evidence.evidence_gpu_class,
        evidence.started_at,
        evidence.ended_at,
        evidence.capacity_fraction,
        evidence.gpu_equivalents,
        evidence.reserved_gpus,
        evidence.gpu_hours,
        evidence.guaranteed_gpu_hours,
        evidence.borrowed_gpu_hours,
        evidence.endpoint_share,
        evidence.weight_version,
        evidence.productive_unit,
        evidence.units,
        evidence.unit_weight,
        evidence.weighted_units,
        evidence.unit_price,
        lines.rate_card_version,
        evidence.quantity,
        evidence.amount,
        evidence.related_charge_line_id,
        evidence.source_batch_id,
        evidence.source_file,
        evidence.source_line,
        evidence.policy_source
    from evidence
    inner join lines
        on evidence.charge_line_id = lines.charge_line_id
    inner join recomputed
        on evidence.charge_line_id = recomputed.charge_line_id
)

select * from final
