{#- One allocation per Slurm job (or heterogeneous-job component, of its heterogeneous job's
    workload) that held GPUs: [started_at, ended_at) on its first node's GPU class. A running
    job's allocation is open and provisionally ends at Start + Elapsed, the instant sacct saw
    it (at its batch's extraction time where the output had no Elapsed). A MIG gres (`gres/gpu:a100_3g.20gb`) holds the profile's capacity fraction. The raw
    job id (the id the NVML sampler's cgroups name) and the job's nodes come along for
    telemetry and conservation. -#}
with

jobs as (
    select * from {{ ref('stg_slurm__jobs') }}
),

nodes as (
    select * from {{ ref('int_nodes') }}
),

weights as (
    select * from {{ ref('stg_policy__partition_weights') }}
    where sharing_mode = 'mig'
),

held as (
    select
        jobs.*,
        coalesce(jobs.ended_at, jobs.provisional_end_at, jobs.extracted_at) as allocation_end_at,
        jobs.ended_at is null as is_open
    from jobs
    where
        jobs.started_at is not null
        and jobs.alloc_gpu_count > 0
),

final as (
    select
        held.component_id as allocation_id,
        held.workload_id,
        'slurm' as source_system,
        'slurm_account' as scope_type,
        coalesce(held.account, '') as scope_key,
        held.first_node as node_name,
        nodes.gpu_model,
        coalesce(nodes.gpu_class, 'unknown') as gpu_class,
        case when held.mig_profile is null then 'whole' else 'mig' end as sharing_mode,
        held.mig_profile as profile,
        held.alloc_gpu_count as device_count,
        cast(case
            when held.mig_profile is null then 1
            else coalesce(
                weights.capacity_fraction,
                cast(split_part(held.mig_profile, 'g', 1) as decimal(18, 6)) / 7
            )
        end as decimal(18, 6)) as capacity_fraction,
        held.started_at as allocation_start_at,
        held.allocation_end_at,
        held.is_open,
        nodes.node_name is null as is_orphan,
        'high' as confidence,
        held.job_state,
        held.job_id_raw as slurm_job_id_raw,
        held.node_names,
        coalesce(held.node_count, 1) as node_count
    from held
    left join nodes
        on held.first_node = nodes.node_name
    left join weights
        on
            nodes.gpu_model = weights.gpu_model
            and held.mig_profile = weights.profile
    where held.allocation_end_at > held.started_at
)

select
    *,
    cast(device_count * capacity_fraction as decimal(18, 6)) as gpu_equivalents
from final
