{#- Every allocation from every scheduler source, one shape (sources append here). -#}
with

slurm as (
    select
        *,
        false as is_missing_weight
    from {{ ref('int_slurm_allocations') }}
),

vgpu as (
    select * from {{ ref('int_vgpu_allocations') }}
),

kubernetes as (
    select * from {{ ref('int_kubernetes_allocations') }}
),

unioned as (
    {%- set columns = [
        'allocation_id', 'workload_id', 'source_system', 'scope_type', 'scope_key', 'node_name',
        'gpu_model', 'gpu_class', 'sharing_mode', 'profile', 'device_count', 'capacity_fraction',
        'gpu_equivalents', 'allocation_start_at', 'allocation_end_at', 'is_open', 'is_orphan',
        'is_missing_weight', 'confidence'
    ] %}
    {%- for source in ['slurm', 'vgpu', 'kubernetes'] %}
    select {{ columns | join(', ') }} from {{ source }}
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}
),

final as (
    select * from unioned
)

select * from final
