{#- On every GPU the NVML sampler mapped time-sliced replicas to, the fractions its pieces
    hold (measured shares, modeled replicas, unmapped processes) add up to at most 1 at every
    instant, and every piece holds a fraction in (0, 1]. Tolerance: 6-decimal rounding of up
    to a few shares per round. Returns the offending GPU and instant. -#}
with

pieces as (
    select * from {{ ref('int_timeslice_process_shares') }}
),

deltas as (
    select
        gpu_uuid,
        allocation_start_at as event_at,
        cast(gpu_equivalents as double) as delta
    from pieces
    union all
    select
        gpu_uuid,
        allocation_end_at as event_at,
        -cast(gpu_equivalents as double) as delta
    from pieces
),

levels as (
    select
        gpu_uuid,
        event_at,
        sum(sum(delta)) over (partition by gpu_uuid order by event_at) as held_gpu_equivalents
    from deltas
    group by gpu_uuid, event_at
)

select
    gpu_uuid,
    event_at,
    held_gpu_equivalents,
    null as capacity_fraction
from levels
where held_gpu_equivalents > 1.00001
union all
select
    gpu_uuid,
    allocation_start_at as event_at,
    null as held_gpu_equivalents,
    capacity_fraction
from pieces
where capacity_fraction <= 0 or capacity_fraction > 1
