{#- One row per charge line of fact_chargeback and piece of evidence behind it: what a tenant
    disputing a bill reads (`gpuledger explain`). The pieces are those of the line as
    recomputed now: int_charge_line_evidence for a charge line, int_correction_line_pieces for
    a Correction. For a closed period that is the recomputation of the published line, and
    is_line_reproduced says whether it still equals the published one. Per line the pieces add
    up to the recomputed line exactly (tests/dbt/assert_charge_line_evidence_adds_up.sql).
    Segments name their allocation, workload, scope, node and GPU and the batch, file and line
    they were landed from; policy rows name their policy file and key (the policy snapshot
    keeps no line numbers). -#}
with

lines as (
    select * from {{ ref('fact_chargeback') }}
),

line_evidence as (
    select * from {{ ref('int_charge_line_evidence') }}
),

correction_pieces as (
    select * from {{ ref('int_correction_line_pieces') }}
),

{%- set evidence_columns = [
    'charge_line_id', 'evidence_seq', 'evidence_kind', 'segment_id', 'allocation_id', 'workload_id',
    'source_system', 'scope_type', 'scope_key', 'node_name', 'gpu_uuid', 'endpoint_id', 'evidence_gpu_class',
    'started_at', 'ended_at', 'capacity_fraction', 'gpu_equivalents', 'reserved_gpus', 'gpu_hours',
    'guaranteed_gpu_hours', 'borrowed_gpu_hours', 'endpoint_share', 'weight_version', 'productive_unit', 'units',
    'unit_weight', 'weighted_units', 'unit_price', 'quantity', 'amount', 'related_charge_line_id',
    'source_batch_id', 'source_file', 'source_line', 'policy_source'
] %}

evidence as (
    select {{ evidence_columns | join(', ') }}
    from line_evidence
    union all
    select
        charge_line_id,
        row_number() over (
            partition by charge_line_id order by evidence_kind, related_charge_line_id
        ) as evidence_seq,
        evidence_kind,
        cast(null as {{ dbt.type_string() }}) as segment_id,
        cast(null as {{ dbt.type_string() }}) as allocation_id,
        cast(null as {{ dbt.type_string() }}) as workload_id,
        cast(null as {{ dbt.type_string() }}) as source_system,
        cast(null as {{ dbt.type_string() }}) as scope_type,
        cast(null as {{ dbt.type_string() }}) as scope_key,
        cast(null as {{ dbt.type_string() }}) as node_name,
        cast(null as {{ dbt.type_string() }}) as gpu_uuid,
        cast(null as {{ dbt.type_string() }}) as endpoint_id,
        cast(null as {{ dbt.type_string() }}) as evidence_gpu_class,
        cast(null as timestamp) as started_at,
        cast(null as timestamp) as ended_at,
        cast(null as decimal(18, 6)) as capacity_fraction,
        cast(null as decimal(18, 6)) as gpu_equivalents,
        cast(null as decimal(18, 6)) as reserved_gpus,
        cast(null as decimal(18, 6)) as gpu_hours,
        cast(null as decimal(18, 6)) as guaranteed_gpu_hours,
        cast(null as decimal(18, 6)) as borrowed_gpu_hours,
        cast(null as decimal(20, 12)) as endpoint_share,
        cast(null as {{ dbt.type_string() }}) as weight_version,
        cast(null as {{ dbt.type_string() }}) as productive_unit,
        cast(null as bigint) as units,
        cast(null as decimal(18, 6)) as unit_weight,
        cast(null as decimal(38, 6)) as weighted_units,
        unit_price,
        cast(quantity as decimal(18, 6)) as quantity,
        cast(amount as decimal(18, 2)) as amount,
        related_charge_line_id,
        cast(null as {{ dbt.type_string() }}) as source_batch_id,
        cast(null as {{ dbt.type_string() }}) as source_file,
        cast(null as bigint) as source_line,
        policy_source
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
