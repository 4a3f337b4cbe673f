{#- How each GPU workload (a Slurm job or a Kubernetes pod that held GPUs) ended, in one
    failure class, and who pays for its GPU-hours.

    Slurm, first rule that applies: not ended -> running; COMPLETED -> success;
    OUT_OF_MEMORY, or signal 125 (sacct's 0:125), or signal 9 with an OOM reason ->
    out_of_memory; NODE_FAIL, BOOT_FAIL -> infrastructure; PREEMPTED -> preemption; TIMEOUT,
    DEADLINE -> timeout; CANCELLED, REVOKED -> cancelled; FAILED with a non-zero exit code or
    signal -> user; anything else -> unknown.
    Kubernetes (per pod, over its GPU containers): not ended -> running; status reason
    Preempting / PreemptionByScheduler -> preemption; Evicted, NodeLost, NodeShutdown,
    Shutdown, Terminated, UnexpectedAdmissionError -> infrastructure; a container OOMKilled ->
    out_of_memory; DeadlineExceeded -> timeout; phase Succeeded -> success; deleted with no
    exit code but the deletion's (0, 137 SIGKILL, 143 SIGTERM) -> cancelled; phase Failed or a
    non-zero exit code -> user; deleted -> cancelled; anything else -> unknown.
    A user or unknown failure whose exit code or reason a policy rule (failure_reasons.csv)
    lists takes the rule's class (data, typically): source-specific rules before `any`, exit
    codes before reasons. The payer and avoidable-rework flag come from failure_policy.csv;
    a class the policy does not list is paid by the tenant and is not avoidable rework
    (payer_source 'default'). The tenant is the owner of the workload's scope when it ended
    (running: at its latest allocation end).

    Its period is the one it ended in, or while it runs the period of its latest allocation
    end. Built by period (gpuledger.by_period_config): a build that keeps frozen periods
    computes the workloads that can have a row in a period it computes (an allocation
    overlapping the period or ending at its start, as a running job's end at the extraction;
    a job or pod that ended in it) and keeps the frozen periods' rows. A workload's row moves
    to another period only with a batch whose evidence spans the workload from its start to
    its new end, which touches both periods. -#}
{{ config(**gpuledger.by_period_config()) }}

{%- set computed -%}
{%- if gpuledger.frozen_periods() -%}
where workload_id in (select live_workloads.workload_id from live_workloads)
{%- endif -%}
{%- endset %}

with

all_allocations as (
    select * from {{ ref('int_allocations') }}
),

periods as (
    select * from {{ ref('int_periods') }}
    where {{ gpuledger.live_period('period') }}
),

all_jobs as (
    select * from {{ ref('int_slurm_workloads') }}
),

all_pods as (
    select * from {{ ref('stg_kubernetes__pod_allocations') }}
),

ownership as (
    select * from {{ ref('int_ownership_timeline') }}
),

reason_rules as (
    select * from {{ ref('stg_policy__failure_reasons') }}
),

failure_policy as (
    select * from {{ ref('stg_policy__failure_policy') }}
),

{# with frozen periods (read then only), the workloads that can have a row in a period
    this run computes #}
live_workloads as (  -- noqa: ST03
    select all_allocations.workload_id
    from all_allocations
    inner join periods
        on
            all_allocations.allocation_start_at < periods.period_end_at
            and all_allocations.allocation_end_at >= periods.period_start_at
    union
    select workload_id
    from all_jobs
    where is_ended and {{ gpuledger.live_period(gpuledger.period_of('ended_at')) }}
    union
    select workload_id
    from all_pods
    where {{ gpuledger.live_period(gpuledger.period_of('finished_at')) }}
),

allocations as (
    select * from all_allocations
    {{ computed }}
),

jobs as (
    select * from all_jobs
    {{ computed }}
),

pods as (
    select * from all_pods
    {{ computed }}
),

workloads as (
    select
        workload_id,
        source_system,
        min(scope_type) as scope_type,
        min(scope_key) as scope_key,
        min(allocation_start_at) as started_at,
        max(allocation_end_at) as last_allocated_at
    from allocations
    where source_system in ('slurm', 'kubernetes')
    group by workload_id, source_system
),

slurm_ends as (
    select
        jobs.workload_id,
        'slurm' as source_system,
        jobs.job_name as workload_name,
        jobs.job_state as end_state,
        jobs.exit_code,
        jobs.exit_signal,
        jobs.state_detail as reason,
        jobs.ended_at,
        jobs.is_ended,
        case
            when not jobs.is_ended then 'running'
            when jobs.job_state = 'COMPLETED' then 'success'
            when
                jobs.job_state = 'OUT_OF_MEMORY'
                or jobs.exit_signal = 125
                or (
                    jobs.exit_signal = 9
                    and (
                        upper(coalesce(jobs.state_detail, '')) like '%OOM%'
                        or upper(coalesce(jobs.state_detail, '')) like '%OUT OF MEMORY%'
                    )
                )
                then 'out_of_memory'
            when jobs.job_state in ('NODE_FAIL', 'BOOT_FAIL') then 'infrastructure'
            when jobs.job_state = 'PREEMPTED' then 'preemption'
            when jobs.job_state in ('TIMEOUT', 'DEADLINE') then 'timeout'
            when jobs.job_state in ('CANCELLED', 'REVOKED') then 'cancelled'
            when
                jobs.job_state = 'FAILED'
                and (coalesce(jobs.exit_code, 0) != 0 or coalesce(jobs.exit_signal, 0) != 0)
                then 'user'
            else 'unknown'
        end as state_class
    from jobs
),

pod_facts as (
    select
        workload_id,
        min(pod_name) as pod_name,
        max(pod_phase) as pod_phase,
        max(pod_reason) as pod_reason,
        max(case when termination_reason = 'OOMKilled' then 1 else 0 end) = 1 as has_oom,
        max(case when exit_code != 0 then exit_code end) as failed_exit_code,
        max(exit_code) as exit_code,
        min(termination_reason) as termination_reason,
        max(case when is_deleted then 1 else 0 end) = 1 as is_deleted,
        max(finished_at) as ended_at,
        min(case when finished_at is null then 0 else 1 end) = 1 as is_ended
    from pods
    where has_started and device_count > 0
    group by workload_id
),

kubernetes_ends as (
    select
        pod_facts.workload_id,
        'kubernetes' as source_system,
        pod_facts.pod_name as workload_name,
        coalesce(pod_facts.pod_phase, 'Unknown')
        || coalesce('/' || pod_facts.pod_reason, '') as end_state,
        coalesce(pod_facts.failed_exit_code, pod_facts.exit_code) as exit_code,
        cast(null as bigint) as exit_signal,
        coalesce(pod_facts.pod_reason, pod_facts.termination_reason) as reason,
        pod_facts.ended_at,
        pod_facts.is_ended,
        case
            when not pod_facts.is_ended then 'running'
            when
                pod_facts.pod_reason in (
                    'Preempting', 'PreemptionByScheduler', 'PreemptionByKubeScheduler'
                )
                then 'preemption'
            when
                pod_facts.pod_reason in (
                    'Evicted', 'NodeLost', 'NodeShutdown', 'Shutdown', 'Terminated',
                    'UnexpectedAdmissionError'
                )
                then 'infrastructure'
            when pod_facts.has_oom then 'out_of_memory'
            when pod_facts.pod_reason = 'DeadlineExceeded' then 'timeout'
            when pod_facts.pod_phase = 'Succeeded' then 'success'
            when pod_facts.is_deleted and coalesce(pod_facts.failed_exit_code, 0) in (0, 137, 143)
                then 'cancelled'
            when pod_facts.pod_phase = 'Failed' or pod_facts.failed_exit_code is not null
                then 'user'
            when pod_facts.is_deleted then 'cancelled'
            else 'unknown'
        end as state_class
    from pod_facts
),

ends as (
    select * from slurm_ends
    union all
    select * from kubernetes_ends
),

states as (
    {#- each workload's end, with the scope and time span of its allocations -#}
    select
        workloads.workload_id,
        workloads.source_system,
        workloads.scope_type,
        workloads.scope_key,
        workloads.started_at,
        workloads.last_allocated_at,
        ends.workload_name,
        ends.end_state,
        ends.exit_code,
        ends.exit_signal,
        ends.reason,
        ends.ended_at,
        ends.is_ended,
        ends.state_class
    from workloads
    inner join ends
        on
            workloads.workload_id = ends.workload_id
            and workloads.source_system = ends.source_system
),

evidence as (
    {#- every exit code and reason a policy rule could name, one row each -#}
    select
        workload_id,
        source_system,
        'exit_code' as match_on,
        cast(exit_code as {{ dbt.type_string() }}) as match_value
    from states
    where source_system = 'slurm' and exit_code is not null
    union all
    select
        workload_id,
        source_system,
        'reason' as match_on,
        reason as match_value
    from states
    where source_system = 'slurm' and reason is not null
    union all
    select
        workload_id,
        'kubernetes' as source_system,
        'exit_code' as match_on,
        cast(exit_code as {{ dbt.type_string() }}) as match_value
    from pods
    where exit_code is not null
    union all
    select
        workload_id,
        'kubernetes' as source_system,
        'reason' as match_on,
        termination_reason as match_value
    from pods
    where termination_reason is not null
    union all
    select
        workload_id,
        'kubernetes' as source_system,
        'reason' as match_on,
        pod_reason as match_value
    from pods
    where pod_reason is not null
),

rule_matches as (
    select
        evidence.workload_id,
        reason_rules.failure_class,
        reason_rules.source_system || ' ' || reason_rules.match_on || ' '
        || reason_rules.match_value as matched_rule,
        row_number() over (
            partition by evidence.workload_id
            order by
                case when reason_rules.source_system = 'any' then 1 else 0 end,
                case when reason_rules.match_on = 'exit_code' then 0 else 1 end,
                reason_rules.match_value,
                reason_rules.failure_class
        ) as rule_rank
    from evidence
    inner join reason_rules
        on
            evidence.match_on = reason_rules.match_on
            and evidence.match_value = reason_rules.match_value
            and reason_rules.source_system in (evidence.source_system, 'any')
),

classified as (
    select
        states.*,
        case
            when states.state_class in ('user', 'unknown') and rule_matches.failure_class is not null
                then rule_matches.failure_class
            else states.state_class
        end as failure_class,
        case
            when states.state_class in ('user', 'unknown') and rule_matches.failure_class is not null
                then 'policy rule: ' || rule_matches.matched_rule
            else 'end state'
        end as classified_by
    from states
    left join rule_matches
        on states.workload_id = rule_matches.workload_id and rule_matches.rule_rank = 1
),

final as (
    select
        classified.workload_id,
        classified.source_system,
        classified.workload_name,
        classified.scope_type,
        classified.scope_key,
        coalesce(ownership.tenant_id, '__unattributed__') as tenant_id,
        ownership.project_id,
        classified.end_state,
        classified.exit_code,
        classified.exit_signal,
        classified.reason,
        classified.started_at,
        classified.ended_at,
        classified.is_ended,
        {{ gpuledger.period_of(
            'case when classified.is_ended then classified.ended_at '
            ~ 'else classified.last_allocated_at end'
        ) }} as period,
        classified.failure_class,
        classified.classified_by,
        coalesce(failure_policy.payer, 'tenant') as payer,
        coalesce(failure_policy.is_avoidable_rework, false) as is_avoidable_rework,
        case when failure_policy.failure_class is null then 'default' else 'policy' end
            as payer_source
    from classified
    left join ownership
        on
            classified.scope_type = ownership.scope_type
            and classified.scope_key = ownership.scope_key
            and coalesce(classified.ended_at, classified.last_allocated_at) >= ownership.valid_from_at
            and coalesce(classified.ended_at, classified.last_allocated_at) < ownership.valid_to_at
    left join failure_policy
        on classified.failure_class = failure_policy.failure_class
)

select * from final
