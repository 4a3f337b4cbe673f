{#- Every allocation from every scheduler source, one shape (sources append here).
    A time-sliced replica the NVML sampler mapped to a GPU is replaced by its process-mapped
    pieces (int_timeslice_process_shares); `source_allocation_id` is the scheduler's
    allocation a row belongs to (itself, but for those pieces), `gpu_uuid` the physical GPU
    when the row is placed on one (vGPU host view, process-mapped pieces).
    The keys telemetry knows a workload by travel with it, null where the source has none:
    `pod_uid` and `pod_key` (namespace/pod) of a Kubernetes pod, `slurm_job_id_raw` and
    `node_names` of a Slurm job, `vgpu_uuid` of a vGPU instance; `node_count` is the nodes an
    allocation spans (a Slurm job's, else 1). -#}
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
    {#- the telemetry keys each source has; the others are null -#}
    {%- set source_keys = {
        'slurm': ['slurm_job_id_raw', 'node_names'],
        'vgpu': ['vgpu_uuid'],
        'kubernetes': ['pod_uid', 'pod_key'],
        'process_shares': ['pod_uid', 'pod_key']
    } %}
    {%- for source in ['slurm', 'vgpu', 'kubernetes', 'process_shares'] %}
    select
        {{ columns | join(', ') }},
        {%- for key in ['pod_uid', 'pod_key', 'slurm_job_id_raw', 'node_names', 'vgpu_uuid'] %}
        {{ key if key in source_keys[source] else 'cast(null as ' ~ dbt.type_string() ~ ') as ' ~ key }},
        {%- endfor %}
        {{ 'node_count' if source == 'slurm' else '1 as node_count' }}
    from {{ source }}
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}
),

final as (
    select * from unioned
)

select * from final
