{#- Every allocation from every scheduler source, one shape (sources append here).
    A time-sliced replica the NVML sampler mapped to a GPU is replaced by its process-mapped
    pieces (int_timeslice_process_shares); `source_allocation_id` is the scheduler's
    allocation a row belongs to (itself, but for those pieces), `gpu_uuid` the physical GPU
    when the row is placed on one (vGPU host view, process-mapped pieces). -#}
with

slurm as (
    select
        *,
        allocation_id as source_allocation_id,
        cast(null as {{ dbt.type_string() }}) as gpu_uuid,
        false as is_missing_weight
    from {{ ref('int_slurm_allocations') }}
),

vgpu as (
    select
        *,
        allocation_id as source_allocation_id
    from {{ ref('int_vgpu_allocations') }}
),

process_shares as (
    select * from {{ ref('int_timeslice_process_shares') }}
),

kubernetes as (
    select
        *,
        allocation_id as source_allocation_id,
        cast(null as {{ dbt.type_string() }}) as gpu_uuid
    from {{ ref('int_kubernetes_allocations') }}
    where allocation_id not in (select process_shares.source_allocation_id from process_shares)
),

unioned as (
    {%- set columns = [
        'allocation_id', 'source_allocation_id', 'workload_id', 'source_system', 'scope_type', 'scope_key', 'node_name', 'gpu_uuid',
        'gpu_model', 'gpu_class', 'sharing_mode', 'profile', 'device_count', 'capacity_fraction',
        'gpu_equivalents', 'allocation_start_at', 'allocation_end_at', 'is_open', 'is_orphan',
        'is_missing_weight', 'confidence'
    ] %}
    {%- for source in ['slurm', 'vgpu', 'kubernetes', 'process_shares'] %}
    select {{ columns | join(', ') }} from {{ source }}
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}
),

final as (
    select * from unioned
)

select * from final
