{#- The idle identity, per period and GPU class: allocated (allocated_active +
    allocated_inactive + borrowed_idle + telemetry_unknown) + every idle class of the free
    capacity (reliability_reserve, fragmentation_idle, unused_guarantee,
    platform_unallocated) + the capacity difference (allocation beyond the GPUs in service)
    = the class's physical GPU-hours. Also: the allocation-side classes add up to the
    allocated GPU-hours of the segments. Tolerance 0.01 GPU-hour per class and period (each
    row is rounded to six decimals). Returns the offending period/class rows. -#}
with

idle as (
    select * from {{ ref('fact_idle_capacity') }}
),

capacity as (
    select * from {{ ref('int_capacity_by_class') }}
),

segments as (
    select * from {{ ref('int_allocation_segments') }}
),

classified as (
    select
        period,
        gpu_class,
        sum(gpu_hours) as classified_gpu_hours,
        sum(case when segment_id is not null then gpu_hours else 0 end) as allocated_side_gpu_hours
    from idle
    group by period, gpu_class
),

allocated as (
    select
        period,
        gpu_class,
        sum(gpu_hours) as allocated_gpu_hours
    from segments
    group by period, gpu_class
),

compared as (
    select
        coalesce(capacity.period, classified.period, allocated.period) as period,
        coalesce(capacity.gpu_class, classified.gpu_class, allocated.gpu_class) as gpu_class,
        coalesce(capacity.physical_gpu_hours, 0) as physical_gpu_hours,
        coalesce(classified.classified_gpu_hours, 0) as classified_gpu_hours,
        coalesce(classified.allocated_side_gpu_hours, 0) as allocated_side_gpu_hours,
        coalesce(allocated.allocated_gpu_hours, 0) as allocated_gpu_hours
    from capacity
    full outer join classified
        on capacity.period = classified.period and capacity.gpu_class = classified.gpu_class
    full outer join allocated
        on
            coalesce(capacity.period, classified.period) = allocated.period
            and coalesce(capacity.gpu_class, classified.gpu_class) = allocated.gpu_class
),

final as (
    select * from compared
    where
        abs(physical_gpu_hours - classified_gpu_hours) > 0.01
        or abs(allocated_gpu_hours - allocated_side_gpu_hours) > 0.01
)

select * from final
