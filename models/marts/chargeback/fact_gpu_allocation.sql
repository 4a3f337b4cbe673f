{#- One row per allocation segment: a constant capacity fraction held by one workload for
    one owner, period and rate, [segment_start_at, segment_end_at). Built by period
    (gpuledger.core.period_scope): a closed period's rows stay as they were computed. -#}
{{ config(**gpuledger.by_period_config()) }}
with

segments as (
    select * from {{ ref('int_allocation_segments') }}
    where {{ gpuledger.live_period('period') }}
),

final as (
    select
        segment_id,
        allocation_id,
        workload_id,
        source_system,
        period,
        tenant_id,
        project_id,
        scope_type,
        scope_key,
        node_name,
        gpu_model,
        gpu_class,
        sharing_mode,
        profile,
        device_count,
        capacity_fraction,
        gpu_equivalents,
        segment_start_at,
        segment_end_at,
        cast(round(gpu_hours, 6) as decimal(18, 6)) as allocated_gpu_hours,
        cast(round(guaranteed_gpu_hours, 6) as decimal(18, 6)) as guaranteed_gpu_hours,
        cast(round(borrowed_gpu_hours, 6) as decimal(18, 6)) as borrowed_gpu_hours,
        confidence,
        is_open,
        is_orphan,
        source_allocation_id,
        gpu_uuid
    from segments
)

select * from final
