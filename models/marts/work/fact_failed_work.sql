{#- Failed and preempted work: one row per period, tenant and failure
    class of the GPU workloads (Slurm jobs, Kubernetes pods) — every class, success and
    still-running included, so the GPU-hours of a period and tenant add up to its allocated
    GPU-hours of those sources (tests/dbt/assert_failed_work_covers_workload_hours.sql).
    GPU-hours are allocation segments (a workload crossing a month counts in each month,
    owned as each segment is); `workloads` counts the workloads with GPU-hours in the row,
    `ended_workloads` those that ended in the period (by the tenant owning their scope then).
    The payer and avoidable-rework flag are the policy's (failure_policy.csv); the GPU-hours
    of a class the policy calls avoidable rework are repeated in avoidable_rework_gpu_hours.
    Built by period (gpuledger.by_period_config), as the segments it sums: a build computes
    the periods it computes the segments of, from their segments and the workloads that
    ended in them, and keeps the frozen periods' rows. -#}
{{ config(**gpuledger.by_period_config()) }}
with

segments as (
    select * from {{ ref('int_allocation_segments') }}
    where {{ gpuledger.live_period('period') }}
),

outcomes as (
    {#- every workload's: a segment of a computed period may be a workload's that ended in a
        later period -#}
    select * from {{ ref('int_workload_outcomes') }}
),

failure_policy as (
    select * from {{ ref('stg_policy__failure_policy') }}
),

held as (
    select
        segments.period,
        segments.tenant_id,
        outcomes.failure_class,
        count(distinct segments.workload_id) as workloads,
        {{ gpuledger.exact_sum('segments.gpu_hours') }} as gpu_hours,
        {{ gpuledger.exact_sum('segments.guaranteed_gpu_hours') }} as guaranteed_gpu_hours,
        {{ gpuledger.exact_sum('segments.borrowed_gpu_hours') }} as borrowed_gpu_hours
    from segments
    inner join outcomes
        on segments.workload_id = outcomes.workload_id
    group by segments.period, segments.tenant_id, outcomes.failure_class
),

ended as (
    select
        period,
        tenant_id,
        failure_class,
        count(*) as ended_workloads
    from outcomes
    where is_ended and {{ gpuledger.live_period('period') }}
    group by period, tenant_id, failure_class
),

keys as (
    select
        period,
        tenant_id,
        failure_class
    from held
    union
    select
        period,
        tenant_id,
        failure_class
    from ended
),

final as (
    select
        {{ surrogate_key(['keys.period', 'keys.tenant_id', 'keys.failure_class']) }}
            as failed_work_id,
        keys.period,
        keys.tenant_id,
        keys.failure_class,
        coalesce(failure_policy.payer, 'tenant') as payer,
        case when failure_policy.failure_class is null then 'default' else 'policy' end
            as payer_source,
        coalesce(failure_policy.is_avoidable_rework, false) as is_avoidable_rework,
        cast(coalesce(held.workloads, 0) as bigint) as workloads,
        cast(coalesce(ended.ended_workloads, 0) as bigint) as ended_workloads,
        cast(round(coalesce(held.gpu_hours, 0), 6) as decimal(18, 6)) as gpu_hours,
        cast(round(coalesce(held.guaranteed_gpu_hours, 0), 6) as decimal(18, 6))
            as guaranteed_gpu_hours,
        cast(round(coalesce(held.borrowed_gpu_hours, 0), 6) as decimal(18, 6))
            as borrowed_gpu_hours,
        cast(round(case
            when coalesce(failure_policy.is_avoidable_rework, false) then coalesce(held.gpu_hours, 0)
            else 0
        end, 6) as decimal(18, 6)) as avoidable_rework_gpu_hours
    from keys
    left join held
        on
            keys.period = held.period
            and keys.tenant_id = held.tenant_id
            and keys.failure_class = held.failure_class
    left join ended
        on
            keys.period = ended.period
            and keys.tenant_id = ended.tenant_id
            and keys.failure_class = ended.failure_class
    left join failure_policy
        on keys.failure_class = failure_policy.failure_class
)

select * from final
