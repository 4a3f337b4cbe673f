{{ config(**gpuledger.by_period_config()) }}

{#- Allocations cut into piecewise-constant segments: at period boundaries, at every
    ownership change of the allocation's scope, and at every rate card boundary of its class.
    Each segment then takes the period, owner and rate valid at its start; a segment with no
    owner goes to the `__unattributed__` suspense tenant, never to a guessed one.

    Built by period (gpuledger.core.period_scope): a build that keeps frozen periods cuts only
    the allocations that overlap a period it computes (with every cut they have, so their
    segments are the same) and keeps the segments of those periods. -#}
with

all_allocations as (
    select * from {{ ref('int_allocations') }}
),

periods as (
    select * from {{ ref('int_periods') }}
),

allocations as (
    select all_allocations.*
    from all_allocations
    {{ gpuledger.where_overlaps_live_periods(
        'all_allocations', 'allocation_start_at', 'allocation_end_at'
    ) }}
),

ownership as (
    select * from {{ ref('int_ownership_timeline') }}
),

rate_card as (
    select * from {{ ref('stg_policy__rate_card') }}
),

rate_boundaries as (
    select
        gpu_class,
        valid_from_at as boundary_at
    from rate_card
    union
    select
        gpu_class,
        valid_to_at as boundary_at
    from rate_card
    where valid_to_at is not null
),

cuts as (
    select
        allocation_id,
        allocation_start_at as cut_at
    from allocations
    union
    select
        allocation_id,
        allocation_end_at as cut_at
    from allocations
    union
    select
        allocations.allocation_id,
        periods.period_start_at as cut_at
    from allocations
    inner join periods
        on
            allocations.allocation_start_at < periods.period_start_at
            and allocations.allocation_end_at > periods.period_start_at
    union
    select
        allocations.allocation_id,
        ownership.valid_from_at as cut_at
    from allocations
    inner join ownership
        on
            allocations.scope_type = ownership.scope_type
            and allocations.scope_key = ownership.scope_key
            and allocations.allocation_start_at < ownership.valid_from_at
            and allocations.allocation_end_at > ownership.valid_from_at
    union
    select
        allocations.allocation_id,
        rate_boundaries.boundary_at as cut_at
    from allocations
    inner join rate_boundaries
        on
            allocations.gpu_class = rate_boundaries.gpu_class
            and allocations.allocation_start_at < rate_boundaries.boundary_at
            and allocations.allocation_end_at > rate_boundaries.boundary_at
),

pieces as (
    select
        allocation_id,
        cut_at as segment_start_at,
        lead(cut_at) over (partition by allocation_id order by cut_at) as segment_end_at
    from cuts
),

final as (
    select
        pieces.allocation_id || '@' || cast(pieces.segment_start_at as {{ dbt.type_string() }})
            as segment_id,
        pieces.allocation_id,
        allocations.source_allocation_id,
        allocations.workload_id,
        allocations.source_system,
        allocations.scope_type,
        allocations.scope_key,
        periods.period,
        coalesce(ownership.tenant_id, '__unattributed__') as tenant_id,
        ownership.project_id,
        allocations.node_name,
        allocations.gpu_uuid,
        allocations.gpu_model,
        allocations.gpu_class,
        allocations.sharing_mode,
        allocations.profile,
        allocations.device_count,
        allocations.capacity_fraction,
        allocations.gpu_equivalents,
        pieces.segment_start_at,
        pieces.segment_end_at,
        allocations.is_open,
        allocations.is_orphan,
        allocations.is_missing_weight,
        allocations.pod_uid,
        allocations.pod_key,
        allocations.slurm_job_id_raw,
        allocations.node_names,
        allocations.node_count,
        allocations.vgpu_uuid,
        case when ownership.tenant_id is null then 'unattributed' else allocations.confidence end
            as confidence,
        allocations.gpu_equivalents
        * {{ gpuledger.hours_between('pieces.segment_start_at', 'pieces.segment_end_at') }}
            as gpu_hours
    from pieces
    inner join allocations
        on pieces.allocation_id = allocations.allocation_id
    inner join periods
        on
            pieces.segment_start_at >= periods.period_start_at
            and pieces.segment_start_at < periods.period_end_at
    left join ownership
        on
            allocations.scope_type = ownership.scope_type
            and allocations.scope_key = ownership.scope_key
            and pieces.segment_start_at >= ownership.valid_from_at
            and pieces.segment_start_at < ownership.valid_to_at
    where pieces.segment_end_at is not null
)

select * from final
