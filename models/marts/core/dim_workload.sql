{#- One row per workload (a Slurm job, array task or heterogeneous job), its scheduler facts
    and end state. User and job names are personal data: hashed with the home's salt, dropped
    or kept, as the personal_data setting says (staging keeps them; BI tools read only the
    marts).

    Kept per workload (by_key): a daily run recomputes the workloads int_slurm_workloads
    recomputed (those with a job row a new batch now holds), and keeps the others' rows; a
    change of the settings or the salt makes it whole (macros/keyed.sql,
    gpuledger.core.incremental.keyed_fingerprint). -#}
{{ config(**gpuledger.by_key_config(['workload_id'])) }}
with

jobs as (
    select * from {{ ref('int_slurm_workloads') }}
    where {{ gpuledger.keyed(ref('stg_slurm__jobs'), ['workload_id']) }}
),

settings as (
    select * from {{ ref('stg_policy__settings') }}
),

salt as (
    select * from {{ ref('stg_secrets__personal_data_salt') }}
),

final as (
    select
        jobs.workload_id,
        'slurm' as source_system,
        jobs.cluster_id,
        jobs.job_id,
        {{ gpuledger.personal_data('jobs.job_name', 'settings.personal_data', 'salt.salt') }} as job_name,
        {{ gpuledger.personal_data('jobs.user_name', 'settings.personal_data', 'salt.salt') }} as user_name,
        jobs.account,
        jobs.partition_name,
        jobs.qos,
        jobs.job_state,
        jobs.exit_code,
        jobs.exit_signal,
        jobs.submitted_at,
        jobs.started_at,
        jobs.ended_at,
        jobs.alloc_gpu_count,
        jobs.req_gpu_count,
        jobs.gpu_type,
        jobs.mig_profile,
        jobs.node_list,
        jobs.is_ended,
        jobs.job_state = 'COMPLETED' as is_successful
    from jobs
    cross join settings
    cross join salt
)

select * from final
