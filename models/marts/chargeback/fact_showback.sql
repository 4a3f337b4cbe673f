{#- One row per period and tenant: the four ledgers side by side, never collapsed —
    reserved (entitlement), allocated split into guaranteed and borrowed (allocation),
    active-equivalent and idle-allocated (activity; null until telemetry is landed),
    successful work — then the total charge and cost per successful unit. -#}
with

charges as (
    select * from {{ ref('fact_chargeback') }}
),

usage as (
    select * from {{ ref('int_usage_by_tenant') }}
),

reservation_periods as (
    select * from {{ ref('int_reservation_periods') }}
),

productive_work as (
    select * from {{ ref('fact_productive_work') }}
),

activity as (
    select * from {{ ref('int_allocation_activity') }}
),

activity_by_tenant as (
    {#- the activity ledger; null for a tenant no telemetry covered at all (unknown is not 0) -#}
    select
        period,
        tenant_id,
        sum(active_equivalent_gpu_hours) as active_equivalent_gpu_hours,
        sum(inactive_gpu_hours) as idle_allocated_gpu_hours,
        sum(telemetry_unknown_gpu_hours) as telemetry_unknown_gpu_hours,
        max(case when activity_source != 'none' then 1 else 0 end) as has_telemetry
    from activity
    group by period, tenant_id
),

tenants as (
    select * from {{ ref('dim_tenant') }}
),

reserved as (
    select
        period,
        tenant_id,
        sum(reserved_gpu_hours) as reserved_gpu_hours
    from reservation_periods
    group by period, tenant_id
),

allocated as (
    select
        period,
        tenant_id,
        sum(allocated_gpu_hours) as allocated_gpu_hours,
        sum(guaranteed_gpu_hours) as guaranteed_gpu_hours,
        sum(borrowed_gpu_hours) as borrowed_gpu_hours
    from usage
    group by period, tenant_id
),

segments as (
    select * from {{ ref('int_allocation_segments') }}
),

allocation_mix as (
    {#- the allocation ledger by sharing mode and by confidence, so a modeled time-slice
        share is never read as a measured one -#}
    select
        period,
        tenant_id,
        sum(case when confidence = 'high' then gpu_hours else 0 end) as high_confidence_gpu_hours,
        sum(case when confidence = 'medium' then gpu_hours else 0 end) as medium_confidence_gpu_hours,
        sum(case when confidence = 'modeled' then gpu_hours else 0 end) as modeled_gpu_hours,
        sum(case when confidence = 'unattributed' then gpu_hours else 0 end) as unattributed_gpu_hours,
        sum(case when sharing_mode = 'whole' then gpu_hours else 0 end) as whole_gpu_hours,
        sum(case when sharing_mode = 'mig' then gpu_hours else 0 end) as mig_gpu_hours,
        sum(case when sharing_mode = 'vgpu' then gpu_hours else 0 end) as vgpu_gpu_hours,
        sum(case when sharing_mode = 'timeslice' then gpu_hours else 0 end) as timeslice_gpu_hours,
        sum(case when sharing_mode = 'process' then gpu_hours else 0 end) as process_gpu_hours
    from segments
    group by period, tenant_id
),

job_outcomes as (
    {#- successful work: jobs and pods by end state, gateway requests and tokens -#}
    select
        period,
        tenant_id,
        sum(case when unit_kind = 'job' then successful_units else 0 end) as successful_jobs,
        sum(case when unit_kind = 'job' then unsuccessful_units else 0 end) as unsuccessful_jobs,
        sum(case when unit_kind = 'request' then successful_units else 0 end) as requests,
        sum(case when unit_kind = 'input_token' then successful_units else 0 end) as input_tokens,
        sum(case when unit_kind = 'output_token' then successful_units else 0 end) as output_tokens
    from productive_work
    group by period, tenant_id
),

charged as (
    select
        period,
        tenant_id,
        sum(amount) as total_charge,
        sum(case when {{ gpuledger.is_unpriced('unit_price', 'charge_component') }} then 1 else 0 end)
            as unpriced_lines,
        min(currency) as currency,
        max(status) as status
    from charges
    group by period, tenant_id
),

keys as (
    select
        period,
        tenant_id
    from reserved
    union
    select
        period,
        tenant_id
    from allocated
    union
    select
        period,
        tenant_id
    from job_outcomes
    union
    select
        period,
        tenant_id
    from charged
),

final as (
    select
        keys.period,
        keys.tenant_id,
        tenants.tenant_name,
        cast(round(coalesce(reserved.reserved_gpu_hours, 0), 6) as decimal(18, 6))
            as reserved_gpu_hours,
        cast(round(coalesce(allocated.allocated_gpu_hours, 0), 6) as decimal(18, 6))
            as allocated_gpu_hours,
        cast(round(coalesce(allocated.guaranteed_gpu_hours, 0), 6) as decimal(18, 6))
            as guaranteed_gpu_hours,
        cast(round(coalesce(allocated.borrowed_gpu_hours, 0), 6) as decimal(18, 6))
            as borrowed_gpu_hours,
        case
            when activity_by_tenant.has_telemetry = 1
                then cast(round(activity_by_tenant.active_equivalent_gpu_hours, 6) as decimal(18, 6))
        end as active_equivalent_gpu_hours,
        case
            when activity_by_tenant.has_telemetry = 1
                then cast(round(activity_by_tenant.idle_allocated_gpu_hours, 6) as decimal(18, 6))
        end as idle_allocated_gpu_hours,
        cast(round(coalesce(activity_by_tenant.telemetry_unknown_gpu_hours, 0), 6) as decimal(18, 6))
            as telemetry_unknown_gpu_hours,
        cast(round(coalesce(allocation_mix.high_confidence_gpu_hours, 0), 6) as decimal(18, 6))
            as high_confidence_gpu_hours,
        cast(round(coalesce(allocation_mix.medium_confidence_gpu_hours, 0), 6) as decimal(18, 6))
            as medium_confidence_gpu_hours,
        cast(round(coalesce(allocation_mix.modeled_gpu_hours, 0), 6) as decimal(18, 6)) as modeled_gpu_hours,
        cast(round(coalesce(allocation_mix.unattributed_gpu_hours, 0), 6) as decimal(18, 6)) as unattributed_gpu_hours,
        cast(round(coalesce(allocation_mix.whole_gpu_hours, 0), 6) as decimal(18, 6)) as whole_gpu_hours,
        cast(round(coalesce(allocation_mix.mig_gpu_hours, 0), 6) as decimal(18, 6)) as mig_gpu_hours,
        cast(round(coalesce(allocation_mix.vgpu_gpu_hours, 0), 6) as decimal(18, 6)) as vgpu_gpu_hours,
        cast(round(coalesce(allocation_mix.timeslice_gpu_hours, 0), 6) as decimal(18, 6)) as timeslice_gpu_hours,
        cast(round(coalesce(allocation_mix.process_gpu_hours, 0), 6) as decimal(18, 6)) as process_gpu_hours,
        case
            when reserved.reserved_gpu_hours > 0
                then cast(round(
                    coalesce(allocated.allocated_gpu_hours, 0) / reserved.reserved_gpu_hours, 4
                ) as decimal(18, 4))
        end as reservation_occupancy_ratio,
        cast(coalesce(job_outcomes.successful_jobs, 0) as bigint) as successful_jobs,
        cast(coalesce(job_outcomes.unsuccessful_jobs, 0) as bigint) as unsuccessful_jobs,
        cast(coalesce(job_outcomes.requests, 0) as bigint) as requests,
        cast(coalesce(job_outcomes.input_tokens, 0) as bigint) as input_tokens,
        cast(coalesce(job_outcomes.output_tokens, 0) as bigint) as output_tokens,
        cast(coalesce(charged.total_charge, 0) as decimal(18, 2)) as total_charge,
        cast(coalesce(charged.unpriced_lines, 0) as bigint) as unpriced_lines,
        charged.currency,
        case
            when job_outcomes.successful_jobs > 0
                then cast(
                    round(charged.total_charge / job_outcomes.successful_jobs, 2)
                    as decimal(18, 2)
                )
        end as cost_per_successful_unit,
        coalesce(charged.status, 'provisional') as status
    from keys
    left join tenants
        on keys.tenant_id = tenants.tenant_id
    left join reserved
        on keys.period = reserved.period and keys.tenant_id = reserved.tenant_id
    left join allocated
        on keys.period = allocated.period and keys.tenant_id = allocated.tenant_id
    left join job_outcomes
        on keys.period = job_outcomes.period and keys.tenant_id = job_outcomes.tenant_id
    left join charged
        on keys.period = charged.period and keys.tenant_id = charged.tenant_id
    left join activity_by_tenant
        on keys.period = activity_by_tenant.period and keys.tenant_id = activity_by_tenant.tenant_id
    left join allocation_mix
        on keys.period = allocation_mix.period and keys.tenant_id = allocation_mix.tenant_id
)

select * from final
