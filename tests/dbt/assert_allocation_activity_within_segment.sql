{#- Activity never exceeds allocation: per segment, active-equivalent GPU-hours <= the covered
    GPU-hours <= the segment's GPU-hours, coverage is a share (0..1), and in use + inactive +
    telemetry unknown = the segment's GPU-hours (inactive = borrowed idle + allocated-inactive).
    Returns the offending segments. -#}
with

activity as (
    select * from {{ ref('int_allocation_activity') }}
),

final as (
    select
        segment_id,
        gpu_hours,
        covered_gpu_hours,
        active_equivalent_gpu_hours,
        telemetry_coverage_ratio,
        in_use_gpu_hours,
        inactive_gpu_hours,
        telemetry_unknown_gpu_hours
    from activity
    where
        active_equivalent_gpu_hours > covered_gpu_hours + 0.000001
        or covered_gpu_hours > gpu_hours + 0.000001
        or telemetry_coverage_ratio < 0
        or telemetry_coverage_ratio > 1.000000001
        or abs(in_use_gpu_hours + inactive_gpu_hours + telemetry_unknown_gpu_hours - gpu_hours) > 0.000001
        or abs(borrowed_idle_gpu_hours + allocated_inactive_gpu_hours - inactive_gpu_hours) > 0.000001
)

select * from final
