{#- Where each scheduler allocation came from: the landed batch, its file and the record's
    line. A Slurm job is its sacct line (the report staging kept), a Kubernetes pod container
    GPU request its winning observation's line; a vGPU assignment is built from host polls,
    so its origin is the batch of the poll that first saw it (the vGPU staging keeps no line
    number). The process-mapped pieces of a time-sliced replica share their pod's origin;
    processes no replica owns (`nvml:<gpu>`) have none. -#}
with

allocations as (
    select * from {{ ref('int_allocations') }}
),

slurm_jobs as (
    select * from {{ ref('stg_slurm__jobs') }}
),

pods as (
    select * from {{ ref('stg_kubernetes__pod_allocations') }}
),

vgpu_assignments as (
    select * from {{ ref('stg_vgpu__assignments') }}
),

vgpu_samples as (
    select * from {{ ref('stg_vgpu__samples') }}
),

batches as (
    select * from {{ ref('stg_landing__batches') }}
),

scheduler_allocations as (
    select distinct
        source_allocation_id,
        source_system
    from allocations
),

records as (
    select
        slurm_jobs.workload_id as source_allocation_id,
        slurm_jobs.batch_id,
        slurm_jobs.source_line
    from slurm_jobs
    union all
    select
        pods.pod_allocation_id as source_allocation_id,
        pods.batch_id,
        pods.source_line
    from pods
    union all
    select
        'vgpu:' || vgpu_assignments.assignment_id as source_allocation_id,
        vgpu_samples.batch_id,
        cast(null as bigint) as source_line
    from vgpu_assignments
    inner join vgpu_samples
        on
            vgpu_assignments.gpu_uuid = vgpu_samples.gpu_uuid
            and vgpu_assignments.vgpu_uuid = vgpu_samples.vgpu_uuid
            and vgpu_assignments.first_seen_at = vgpu_samples.sampled_at
),

final as (
    select
        scheduler_allocations.source_allocation_id,
        scheduler_allocations.source_system,
        records.batch_id,
        batches.file_path,
        records.source_line
    from scheduler_allocations
    inner join records
        on scheduler_allocations.source_allocation_id = records.source_allocation_id
    left join batches
        on records.batch_id = batches.batch_id
)

select * from final
