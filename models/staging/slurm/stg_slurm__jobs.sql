{#- The latest word on each Slurm job: sacct windows overlap and a running job is reported
    again when it ends, so one job can arrive in several batches. A final state wins over a
    non-final one, then the most recent extraction (so a running job's provisional end, the
    Start + Elapsed sacct saw, is superseded by a later extraction's). A heterogeneous job's
    components (`176+0`, `176+1`) are rows of their own (`component_id`) of one workload,
    the heterogeneous job (`workload_id` names job 176).

    Kept per job (by_key): a daily run recomputes the jobs its new batches report, from
    every report of them, and keeps the others' rows (macros/keyed.sql). -#}
{{ config(**gpuledger.by_key_config(['cluster_id', 'job_id'])) }}
with

jobs as (
    select * from {{ source('slurm', 'slurm_jobs') }}
    where {{ gpuledger.keyed(source('slurm', 'slurm_jobs'), ['cluster', 'job_id']) }}
),

reports as (
    select
        *,
        state in (
            'COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'NODE_FAIL', 'PREEMPTED',
            'OUT_OF_MEMORY', 'BOOT_FAIL', 'DEADLINE', 'REVOKED'
        ) as is_ended
    from jobs
),

latest as (
    {{ gpuledger.latest_landed('reports', key=['cluster', 'job_id'], prefer=['is_ended desc']) }}
),

final as (
    select
        'slurm:' || cluster || ':' || coalesce(het_job_id, job_id) as workload_id,
        'slurm:' || cluster || ':' || job_id as component_id,
        cluster as cluster_id,
        job_id,
        job_id_raw,
        het_job_id,
        het_job_offset,
        array_job_id,
        array_task_id,
        job_name,
        user_name,
        account,
        partition as partition_name,
        qos,
        state as job_state,
        state_detail,
        exit_code,
        exit_signal,
        submit_at as submitted_at,
        eligible_at,
        start_at as started_at,
        end_at as ended_at,
        provisional_end_at,
        end_basis,
        elapsed_seconds,
        timelimit_minutes,
        node_count,
        node_list,
        node_names,
        split_part(coalesce(node_names, ''), ',', 1) as first_node,
        alloc_gpu_count,
        req_gpu_count,
        gpu_type,
        mig_profile,
        is_ended,
        batch_id,
        extracted_at,
        source_line
    from latest
)

select * from final
