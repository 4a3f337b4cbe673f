{#- One row per workload (a Slurm job, array task or heterogeneous job), its scheduler facts
    and end state. -#}
with

jobs as (
    select * from {{ ref('int_slurm_workloads') }}
),

final as (
    select
        workload_id,
        'slurm' as source_system,
        cluster_id,
        job_id,
        job_name,
        user_name,
        account,
        partition_name,
        qos,
        job_state,
        exit_code,
        exit_signal,
        submitted_at,
        started_at,
        ended_at,
        alloc_gpu_count,
        req_gpu_count,
        gpu_type,
        mig_profile,
        node_list,
        is_ended,
        job_state = 'COMPLETED' as is_successful
    from jobs
)

select * from final
