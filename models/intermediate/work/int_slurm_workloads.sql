{#- One row per Slurm workload: a job or array task as stg_slurm__jobs has it, or a
    heterogeneous job with its components rolled up. A heterogeneous job's names, state and
    exit are its leader's (component 0, whose record sacct lists first); it started with its
    first component, ended with its last (while any component runs it has not ended), and
    held the sum of its components' GPUs.

    Kept per workload (by_key): a daily run recomputes the workloads with a component whose
    staging row a new batch now holds (a report that lost to an older one changes nothing),
    from all their components, and keeps the others' rows (macros/keyed.sql). -#}
{{ config(**gpuledger.by_key_config(['workload_id'])) }}
with

jobs as (
    select * from {{ ref('stg_slurm__jobs') }}
    where {{ gpuledger.keyed(ref('stg_slurm__jobs'), ['workload_id']) }}
),

ranked as (
    select
        *,
        row_number() over (
            partition by workload_id
            order by coalesce(het_job_offset, 0), component_id
        ) as component_rank
    from jobs
),

rolled_up as (
    select
        workload_id,
        count(*) as component_count,
        min(started_at) as started_at,
        case when count(ended_at) = count(*) then max(ended_at) end as ended_at,
        min(case when is_ended then 1 else 0 end) = 1 as is_ended,
        cast(sum(alloc_gpu_count) as bigint) as alloc_gpu_count,
        cast(sum(req_gpu_count) as bigint) as req_gpu_count
    from jobs
    group by workload_id
),

final as (
    select
        leaders.workload_id,
        leaders.cluster_id,
        coalesce(leaders.het_job_id, leaders.job_id) as job_id,
        leaders.job_name,
        leaders.user_name,
        leaders.account,
        leaders.partition_name,
        leaders.qos,
        leaders.job_state,
        leaders.state_detail,
        leaders.exit_code,
        leaders.exit_signal,
        leaders.submitted_at,
        rolled_up.started_at,
        rolled_up.ended_at,
        rolled_up.alloc_gpu_count,
        rolled_up.req_gpu_count,
        leaders.gpu_type,
        leaders.mig_profile,
        leaders.node_list,
        rolled_up.is_ended,
        rolled_up.component_count
    from ranked as leaders
    inner join rolled_up
        on leaders.workload_id = rolled_up.workload_id
    where leaders.component_rank = 1
)

select * from final
