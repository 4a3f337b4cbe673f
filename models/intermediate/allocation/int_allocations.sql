{#- Every allocation from every scheduler source, one shape (sources append here). -#}
with

slurm as (
    select * from {{ ref('int_slurm_allocations') }}
),

final as (
    select
        allocation_id,
        workload_id,
        source_system,
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
        allocation_start_at,
        allocation_end_at,
        is_open,
        is_orphan,
        confidence
    from slurm
)

select * from final
