{#- The evidence of every recomputed charge line (int_charge_lines), spread and located: a
    weighted piece (int_charge_line_pieces) takes its part of the line's quantity (to 6
    decimals) and amount (to the cent) in proportion to its weight, by largest remainder, what
    the line's exact pieces leave; exact pieces (credits, the pool and the lines that recovered
    it, weighted units) carry their own. So per line the pieces add up to its quantity and
    amount exactly. Segments name their allocation, workload, scope, node and GPU, their
    GPU-hours and guaranteed and borrowed parts, and the batch, file and line their
    allocation was landed from (int_allocation_origins). A table built with the charges, so
    that fact_charge_line_evidence, refreshed after every close, only joins. Built by period:
    a line's evidence is its period's pieces and segments, so the periods a build keeps
    (gpuledger.core.period_scope) keep their evidence rows. -#}
{{ config(**gpuledger.by_period_config()) }}
with

charges as (
    select * from {{ ref('int_charge_lines') }}
    where {{ gpuledger.live_period('period') }}
),

pieces as (
    select * from {{ ref('int_charge_line_pieces') }}
    where {{ gpuledger.live_period('period') }}
),

segments as (
    select * from {{ ref('int_allocation_segments') }}
    where {{ gpuledger.live_period('period') }}
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

{# A line's total weight is summed as a decimal (gpuledger.exact_sum): the same on every
    build. A double sum's last bits follow the order the engine added the pieces in,
    and a share that moved by them could hand a piece's rounding unit (1e-6, a cent) to
    another piece of the same line from one build to the next. #}
line_weights as (
    select
        *,
        line_quantity - coalesce(sum(exact_quantity) over (partition by charge_line_id), 0)
            as weighted_quantity,
        line_amount - coalesce(sum(exact_amount) over (partition by charge_line_id), 0)
            as weighted_amount,
        {{ gpuledger.exact_sum('weight', over='partition by charge_line_id') }} as line_weight,
        count(weight) over (partition by charge_line_id) as weighted_pieces
    from line_pieces
),

weighted as (
    select
        *,
        case
            when line_weight = 0 then 1.0 / weighted_pieces
            else weight / line_weight
        end as weight_share
    from line_weights
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
    'charge_line_id', 'period', 'evidence_kind', 'evidence_key', 'segment_id', 'endpoint_id', 'evidence_gpu_class',
    'started_at', 'ended_at', 'reserved_gpus', 'gpu_hours', 'endpoint_share', 'weight_version', 'productive_unit',
    'units', 'unit_weight', 'weighted_units', 'unit_price', 'related_charge_line_id', 'source_batch_id',
    'source_file', 'policy_source'
] %}

evidence as (
    select {{ piece_columns | join(', ') }}, quantity, amount
    from spread
    union all
    select {{ piece_columns | join(', ') }}, exact_quantity as quantity, exact_amount as amount
    from line_pieces
    where weight is null
),

final as (
    select
        evidence.charge_line_id,
        evidence.period,
        row_number() over (
            partition by evidence.charge_line_id
            order by
                evidence.evidence_kind,
                coalesce(segments.segment_start_at, evidence.started_at),
                evidence.evidence_key
        ) as evidence_seq,
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
        evidence.quantity,
        evidence.amount,
        evidence.related_charge_line_id,
        coalesce(origins.batch_id, evidence.source_batch_id) as source_batch_id,
        coalesce(origins.file_path, evidence.source_file) as source_file,
        origins.source_line,
        evidence.policy_source
    from evidence
    left join segments
        on evidence.segment_id = segments.segment_id
    left join origins
        on segments.source_allocation_id = origins.source_allocation_id
)

select * from final
