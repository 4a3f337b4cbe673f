{#- One row per charge line of fact_chargeback and piece of evidence behind it: what a tenant
    disputing a bill reads (`gpuledger explain`). The pieces (int_charge_line_pieces,
    int_correction_line_pieces) are those of the line as recomputed now; for a closed period
    that is the recomputation of the published line, and is_line_reproduced says whether it
    still equals the published one. A weighted piece takes its part of the recomputed line's
    quantity (to 6 decimals) and amount (to the cent) by largest remainder, so per line the
    pieces add up exactly; exact pieces (credits, recovered pool cost, corrections) carry their
    own. Segments name their allocation, workload, scope, node and GPU, and the batch, file and
    line they were landed from; policy rows name their policy file and key (the policy
    snapshot keeps no line numbers). -#}
with

lines as (
    select * from {{ ref('fact_chargeback') }}
),

charges as (
    select * from {{ ref('int_charge_lines') }}
),

pieces as (
    select * from {{ ref('int_charge_line_pieces') }}
),

correction_pieces as (
    select * from {{ ref('int_correction_line_pieces') }}
),

segments as (
    select * from {{ ref('int_allocation_segments') }}
),

origins as (
    select * from {{ ref('int_allocation_origins') }}
),

line_pieces as (
    select
        charges.charge_line_id,
        charges.quantity as line_quantity,
        charges.amount as line_amount,
        pieces.*
    from pieces
    inner join charges
        on
            pieces.period = charges.period
            and pieces.tenant_id = charges.tenant_id
            and pieces.charge_component = charges.charge_component
            and pieces.gpu_class = charges.gpu_class
            and coalesce(pieces.rate_card_version, '') = coalesce(charges.rate_card_version, '')
            and (
                pieces.price_key is null
                or pieces.price_key = coalesce(cast(charges.unit_price as {{ dbt.type_string() }}), '')
            )
),

weighted as (
    select
        *,
        line_quantity - coalesce(sum(exact_quantity) over (partition by charge_line_id), 0)
            as weighted_quantity,
        line_amount - coalesce(sum(exact_amount) over (partition by charge_line_id), 0)
            as weighted_amount,
        case
            when sum(weight) over (partition by charge_line_id) = 0
                then 1.0 / count(weight) over (partition by charge_line_id)
            else weight / sum(weight) over (partition by charge_line_id)
        end as weight_share
    from line_pieces
),

spread as (
    select
        weighted.*,
        {{ gpuledger.largest_remainder_amount(
            'weighted.weighted_quantity * weighted.weight_share',
            'weighted.weighted_quantity',
            'weighted.charge_line_id',
            'weighted.evidence_key',
            decimals=6
        ) }} as quantity,
        {{ gpuledger.largest_remainder_amount(
            'weighted.weighted_amount * weighted.weight_share',
            'weighted.weighted_amount',
            'weighted.charge_line_id',
            'weighted.evidence_key'
        ) }} as amount
    from weighted
    where weighted.weight is not null
),

{%- set piece_columns = [
    'charge_line_id', 'evidence_kind', 'evidence_key', 'segment_id', 'endpoint_id', 'evidence_gpu_class',
    'started_at', 'ended_at', 'reserved_gpus', 'gpu_hours', 'endpoint_share', 'weight_version', 'productive_unit', 'units',
    'unit_weight', 'weighted_units', 'unit_price', 'related_charge_line_id', 'source_batch_id',
    'source_file', 'policy_source'
] %}

evidence as (
    select {{ piece_columns | join(', ') }}, quantity, amount
    from spread
    union all
    select {{ piece_columns | join(', ') }}, exact_quantity as quantity, exact_amount as amount
    from line_pieces
    where weight is null
    union all
    select
        charge_line_id,
        evidence_kind,
        related_charge_line_id as evidence_key,
        cast(null as {{ dbt.type_string() }}) as segment_id,
        cast(null as {{ dbt.type_string() }}) as endpoint_id,
        cast(null as {{ dbt.type_string() }}) as evidence_gpu_class,
        cast(null as timestamp) as started_at,
        cast(null as timestamp) as ended_at,
        cast(null as decimal(18, 6)) as reserved_gpus,
        cast(null as double) as gpu_hours,
        cast(null as decimal(20, 12)) as endpoint_share,
        cast(null as {{ dbt.type_string() }}) as weight_version,
        cast(null as {{ dbt.type_string() }}) as productive_unit,
        cast(null as bigint) as units,
        cast(null as decimal(18, 6)) as unit_weight,
        cast(null as decimal(38, 6)) as weighted_units,
        unit_price,
        related_charge_line_id,
        cast(null as {{ dbt.type_string() }}) as source_batch_id,
        cast(null as {{ dbt.type_string() }}) as source_file,
        policy_source,
        cast(quantity as decimal(18, 6)) as quantity,
        cast(amount as decimal(18, 2)) as amount
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
        evidence.charge_line_id || '#' || lpad(cast(row_number() over (
            partition by evidence.charge_line_id
            order by
                evidence.evidence_kind,
                coalesce(segments.segment_start_at, evidence.started_at),
                evidence.evidence_key
        ) as {{ dbt.type_string() }}), 6, '0') as evidence_id,
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
        segments.allocation_id,
        segments.workload_id,
        segments.source_system,
        segments.scope_type,
        segments.scope_key,
        segments.node_name,
        segments.gpu_uuid,
        evidence.endpoint_id,
        coalesce(segments.gpu_class, evidence.evidence_gpu_class) as evidence_gpu_class,
        case
            when evidence.evidence_kind = 'segment' then segments.segment_start_at
            else evidence.started_at
        end as started_at,
        case
            when evidence.evidence_kind = 'segment' then segments.segment_end_at
            else evidence.ended_at
        end as ended_at,
        segments.capacity_fraction,
        segments.gpu_equivalents,
        evidence.reserved_gpus,
        cast(round(case
            when evidence.evidence_kind = 'segment' then segments.gpu_hours
            else evidence.gpu_hours
        end, 6) as decimal(18, 6)) as gpu_hours,
        case
            when evidence.evidence_kind = 'segment'
                then cast(round(segments.guaranteed_gpu_hours, 6) as decimal(18, 6))
        end as guaranteed_gpu_hours,
        case
            when evidence.evidence_kind = 'segment'
                then cast(round(segments.borrowed_gpu_hours, 6) as decimal(18, 6))
        end as borrowed_gpu_hours,
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
        coalesce(origins.batch_id, evidence.source_batch_id) as source_batch_id,
        coalesce(origins.file_path, evidence.source_file) as source_file,
        origins.source_line,
        evidence.policy_source
    from evidence
    inner join lines
        on evidence.charge_line_id = lines.charge_line_id
    inner join recomputed
        on evidence.charge_line_id = recomputed.charge_line_id
    left join segments
        on evidence.segment_id = segments.segment_id
    left join origins
        on segments.source_allocation_id = origins.source_allocation_id
)

select * from final
