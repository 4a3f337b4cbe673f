{#- Capacity identity per period and GPU class: physical GPU-hours = allocated + unallocated,
    with unallocated >= 0 (no class allocated more hours than its devices were in service).
    Unavailable time is not modeled yet, so unallocated is what the identity leaves; orphan
    usage (class 'unknown') has no physical capacity and is checked by no_orphan_allocations.
    Returns the offending period/class rows. Severity warn: allocation beyond capacity is a
    data condition, and the blocking gate for it is fact_reconciliation's capacity_identity
    check, which `gpuledger close` reports as BLOCKED; an error here would abort the build
    before that report exists. -#}
{{ config(severity='warn') }}

with

capacity as (
    select * from {{ ref('int_capacity_by_class') }}
),

usage as (
    select * from {{ ref('int_usage_by_tenant') }}
),

class_usage as (
    select
        period,
        gpu_class,
        sum(allocated_gpu_hours) as allocated_gpu_hours
    from usage
    where gpu_class != 'unknown'
    group by period, gpu_class
),

identity as (
    select
        coalesce(capacity.period, class_usage.period) as period,
        coalesce(capacity.gpu_class, class_usage.gpu_class) as gpu_class,
        coalesce(capacity.physical_gpu_hours, 0) as physical_gpu_hours,
        coalesce(class_usage.allocated_gpu_hours, 0) as allocated_gpu_hours,
        coalesce(capacity.physical_gpu_hours, 0)
        - coalesce(class_usage.allocated_gpu_hours, 0) as unallocated_gpu_hours
    from capacity
    full outer join class_usage
        on
            capacity.period = class_usage.period
            and capacity.gpu_class = class_usage.gpu_class
),

final as (
    select *
    from identity
    where
        unallocated_gpu_hours < -0.000001
        or abs(physical_gpu_hours - (allocated_gpu_hours + unallocated_gpu_hours)) > 0.000001
)

select * from final
