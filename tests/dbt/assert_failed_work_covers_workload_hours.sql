{#- Every allocated GPU-hour of a Slurm or Kubernetes workload is in exactly one failure class:
    per period and tenant, fact_failed_work's GPU-hours equal the allocation segments' of
    those sources (to rounding). Returns the periods and tenants that differ. -#}
with

failed_work as (
    select * from {{ ref('fact_failed_work') }}
),

segments as (
    select * from {{ ref('int_allocation_segments') }}
),

classified as (
    select
        period,
        tenant_id,
        sum(gpu_hours) as classified_gpu_hours
    from failed_work
    group by period, tenant_id
),

allocated as (
    select
        period,
        tenant_id,
        sum(gpu_hours) as allocated_gpu_hours
    from segments
    where source_system in ('slurm', 'kubernetes')
    group by period, tenant_id
),

final as (
    select
        coalesce(classified.period, allocated.period) as period,
        coalesce(classified.tenant_id, allocated.tenant_id) as tenant_id,
        classified.classified_gpu_hours,
        allocated.allocated_gpu_hours
    from classified
    full outer join allocated
        on classified.period = allocated.period and classified.tenant_id = allocated.tenant_id
    where
        abs(coalesce(classified.classified_gpu_hours, 0) - coalesce(allocated.allocated_gpu_hours, 0))
        > 0.0001
)

select * from final
