{#- The tenant/class level sweep. Per tenant and GPU class, every allocation segment starting
    or ending, every reservation starting or ending and every period boundary is an event;
    between two consecutive events the tenant's allocated GPU-equivalents (its segments
    running then) and its reserved GPUs are constant: running sums of the events' deltas,
    in decimals, so exact (O(n log n), no interval-by-segment range join). At each instant
    the allocation above the reservation is borrowed, the reservation the tenant did not
    allocate itself is unused.
    Read by int_allocation_segments (the borrowed split), int_unused_guarantee and
    int_capacity_idle_timeline (the unused guarantee), and int_class_timeline (a class's
    levels are the sums of its tenants' deltas). -#}
with

segments as (
    select * from {{ ref('int_allocation_segments_split') }}
),

reservations as (
    select * from {{ ref('stg_policy__reservations') }}
),

periods as (
    select * from {{ ref('int_periods') }}
),

tenant_classes as (
    select
        tenant_id,
        gpu_class
    from segments
    union
    select
        tenant_id,
        gpu_class
    from reservations
),

deltas as (
    {%- for edge, sign in [('start', ''), ('end', '-')] %}
    select
        tenant_id,
        gpu_class,
        segment_{{ edge }}_at as event_at,
        {{ sign }}gpu_equivalents as allocated_delta,
        0 as reserved_delta
    from segments
    union all
    {%- endfor %}
    select
        tenant_id,
        gpu_class,
        valid_from_at as event_at,
        0 as allocated_delta,
        reserved_gpus as reserved_delta
    from reservations
    union all
    select
        tenant_id,
        gpu_class,
        valid_to_at as event_at,
        0 as allocated_delta,
        -reserved_gpus as reserved_delta
    from reservations
    where valid_to_at is not null
    union all
    select
        tenant_classes.tenant_id,
        tenant_classes.gpu_class,
        periods.period_start_at as event_at,
        0 as allocated_delta,
        0 as reserved_delta
    from tenant_classes
    cross join periods
    union all
    select
        tenant_classes.tenant_id,
        tenant_classes.gpu_class,
        periods.period_end_at as event_at,
        0 as allocated_delta,
        0 as reserved_delta
    from tenant_classes
    cross join periods
),

levels as (
    {{ gpuledger.event_levels(
        'deltas',
        partition_by=['tenant_id', 'gpu_class'],
        levels={'allocated_gpu_equivalents': 'allocated_delta', 'reserved_gpus': 'reserved_delta'}
    ) }}
),

final as (
    select
        *,
        greatest(allocated_gpu_equivalents - reserved_gpus, 0) as borrowed_gpu_equivalents,
        greatest(reserved_gpus - allocated_gpu_equivalents, 0) as unused_reserved_gpus
    from levels
)

select * from final
