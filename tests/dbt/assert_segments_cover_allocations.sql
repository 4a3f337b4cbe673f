{#- Splitting loses and invents nothing: for every allocation, its segments run from its
    start to its end and their GPU-hours add up to the allocation's hours x gpu_equivalents
    (no gap, no overlap, no segment without an allocation). Returns the offending
    allocations. -#}
with

allocations as (
    select * from {{ ref('int_allocations') }}
),

segments as (
    select * from {{ ref('int_allocation_segments') }}
),

expected as (
    select
        allocation_id,
        allocation_start_at,
        allocation_end_at,
        gpu_equivalents
        * {{ gpuledger.hours_between('allocation_start_at', 'allocation_end_at') }}
            as allocation_gpu_hours
    from allocations
),

covered as (
    select
        allocation_id,
        min(segment_start_at) as first_segment_start_at,
        max(segment_end_at) as last_segment_end_at,
        count(*) as segment_count,
        sum(gpu_hours) as segment_gpu_hours
    from segments
    group by allocation_id
),

final as (
    select
        coalesce(expected.allocation_id, covered.allocation_id) as allocation_id,
        expected.allocation_start_at,
        expected.allocation_end_at,
        covered.first_segment_start_at,
        covered.last_segment_end_at,
        covered.segment_count,
        expected.allocation_gpu_hours,
        covered.segment_gpu_hours
    from expected
    full outer join covered
        on expected.allocation_id = covered.allocation_id
    where
        expected.allocation_id is null
        or covered.allocation_id is null
        or covered.first_segment_start_at != expected.allocation_start_at
        or covered.last_segment_end_at != expected.allocation_end_at
        or abs(covered.segment_gpu_hours - expected.allocation_gpu_hours) > 0.000001
)

select * from final
