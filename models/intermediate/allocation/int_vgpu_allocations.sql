{#- One allocation per vGPU assignment (a vGPU profile held by a VM on a physical GPU) as the
    hypervisor reported it: host evidence only, never summed with in-guest telemetry. The
    capacity fraction is the approved vGPU profile weight (partition_weights, mode vgpu);
    a profile without a weight holds the whole GPU provisionally and is flagged, so the
    close's partition_weight_coverage check blocks it. A VM is owned by its UUID; a VM known
    only by a host-local domain id cannot be attributed and goes to suspense. -#}
with

assignments as (
    select * from {{ ref('stg_vgpu__assignments') }}
),

devices as (
    select * from {{ ref('int_devices_classified') }}
),

weights as (
    select * from {{ ref('stg_policy__partition_weights') }}
    where sharing_mode = 'vgpu'
),

final as (
    select
        'vgpu:' || assignments.assignment_id as allocation_id,
        'vgpu:' || assignments.node_name || ':' || assignments.vgpu_uuid as workload_id,
        'vgpu' as source_system,
        'vm' as scope_type,
        case when assignments.vm_id_type = 'uuid' then lower(assignments.vm_id) else '' end
            as scope_key,
        assignments.node_name,
        assignments.gpu_uuid,
        assignments.vgpu_uuid,
        coalesce(devices.gpu_model, assignments.gpu_model) as gpu_model,
        coalesce(devices.gpu_class, 'unknown') as gpu_class,
        'vgpu' as sharing_mode,
        assignments.vgpu_profile as profile,
        1 as device_count,
        cast(coalesce(weights.capacity_fraction, 1) as decimal(18, 6)) as capacity_fraction,
        weights.capacity_fraction is null as is_missing_weight,
        assignments.assignment_start_at as allocation_start_at,
        assignments.assignment_end_at as allocation_end_at,
        assignments.is_open,
        devices.gpu_uuid is null as is_orphan,
        'high' as confidence
    from assignments
    left join devices
        on assignments.gpu_uuid = devices.gpu_uuid
    left join weights
        on
            coalesce(devices.gpu_model, assignments.gpu_model) = weights.gpu_model
            and assignments.vgpu_profile = weights.profile
    where assignments.assignment_end_at > assignments.assignment_start_at
)

select
    *,
    cast(device_count * capacity_fraction as decimal(18, 6)) as gpu_equivalents
from final
