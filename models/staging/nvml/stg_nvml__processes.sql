{#- GPU compute processes, one row per process per GPU or MIG device per sampling round, with
    the owner its cgroup names: a Kubernetes pod (pod UID, container id) or a Slurm job (the
    raw job id, SLURM_JOB_ID = sacct's JobIDRaw, and step), `other`, or `unresolved`.
    `sm_active_ratio` is the process's SM utilisation (NVML per-process samples, whole GPUs
    only; null on MIG). -#}
with

processes as (
    select * from {{ source('nvml', 'nvml_processes') }}
),

latest as (
    {{ gpuledger.latest_landed('processes', key=['device_uuid', 'pid', 'sampled_at']) }}
),

final as (
    select
        {{ surrogate_key(['device_uuid', 'pid', 'sampled_at']) }} as process_sample_id,
        host as node_name,
        sampled_at,
        interval_seconds,
        pid,
        gpu_uuid,
        device_uuid,
        gpu_index,
        gpu_instance_id,
        compute_instance_id,
        used_gpu_memory_bytes,
        cast(sm_util_percent as double) / 100 as sm_active_ratio,
        owner_kind,
        cgroup_path,
        pod_uid,
        container_id,
        slurm_job_id,
        slurm_step_id,
        owner_error,
        null_reasons,
        batch_id
    from latest
)

select * from final
