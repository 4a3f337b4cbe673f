{#- The capacity identity, per period and GPU class, from independent
    sides: physical GPU-hours, each approved-inventory GPU's in-service interval
    (stg_inventory__devices) clipped to the period, = allocated GPU-hours (the segments) + the
    free-capacity classes of fact_idle_capacity (reliability_reserve, fragmentation_idle,
    unused_guarantee, platform_unallocated) + its capacity_difference (negative where more
    was allocated than was in service) + unavailable (not modeled: physical counts in-service
    time only). Every fact_idle_capacity row is rounded to six decimals, so the tolerance is
    1e-6 plus half a millionth of an hour per row summed. Returns the offending period/class
    rows. (tests/dbt/assert_idle_classes_add_up_to_capacity.sql holds fact_idle_capacity
    against int_capacity_by_class, which this test does not read.) -#}
with

periods as (
    select * from {{ ref('int_periods') }}
),

inventory as (
    select * from {{ ref('stg_inventory__devices') }}
),

classified as (
    select * from {{ ref('int_devices_classified') }}
),

segments as (
    select * from {{ ref('int_allocation_segments') }}
),

idle as (
    select * from {{ ref('fact_idle_capacity') }}
),

in_service as (
    select
        periods.period,
        classified.gpu_class,
        greatest(inventory.in_service_from_at, periods.period_start_at) as service_start_at,
        least(
            coalesce(inventory.in_service_to_at, periods.period_end_at), periods.period_end_at
        ) as service_end_at
    from inventory
    inner join classified
        on inventory.gpu_uuid = classified.gpu_uuid
    inner join periods
        on
            inventory.in_service_from_at < periods.period_end_at
            and (inventory.in_service_to_at is null or inventory.in_service_to_at > periods.period_start_at)
),

sides as (
    select
        period,
        gpu_class,
        {{ gpuledger.hours_between('service_start_at', 'service_end_at') }} as physical_gpu_hours,
        0 as accounted_gpu_hours,
        0 as rounded_rows
    from in_service
    union all
    select
        period,
        gpu_class,
        0 as physical_gpu_hours,
        gpu_hours as accounted_gpu_hours,
        0 as rounded_rows
    from segments
    union all
    select
        period,
        gpu_class,
        0 as physical_gpu_hours,
        gpu_hours as accounted_gpu_hours,
        1 as rounded_rows
    from idle
    where
        idle_class in (
            'reliability_reserve', 'fragmentation_idle', 'unused_guarantee', 'platform_unallocated',
            'capacity_difference'
        )
),

compared as (
    select
        period,
        gpu_class,
        sum(physical_gpu_hours) as physical_gpu_hours,
        sum(accounted_gpu_hours) as accounted_gpu_hours,
        0.000001 + 0.0000005 * sum(rounded_rows) as tolerance_gpu_hours
    from sides
    group by period, gpu_class
),

final as (
    select
        *,
        physical_gpu_hours - accounted_gpu_hours as identity_gap_gpu_hours
    from compared
    where abs(physical_gpu_hours - accounted_gpu_hours) > tolerance_gpu_hours
)

select * from final
