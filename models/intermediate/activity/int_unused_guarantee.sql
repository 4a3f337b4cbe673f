{#- Unused guarantee per tenant: one row per tenant, GPU class and interval between the
    tenant's own events in the class (its allocations starting or ending, its reservations
    changing, period boundaries) while it had reserved GPUs it did not allocate itself.
    The idle capacity the class timeline classified as unused guarantee is shared among
    tenants in proportion to their unused reserved GPUs at each instant:
    unused_guarantee_gpu_hours = unused reserved GPUs x the integral of the class's
    unused_guarantee_scale over the interval (a difference of its running integral), so the
    tenants' rows add up to the class's unused guarantee exactly. -#}
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

timeline as (
    select * from {{ ref('int_capacity_idle_timeline') }}
),

tenant_classes as (
    select distinct
        tenant_id,
        gpu_class
    from reservations
),

deltas as (
    {{ gpuledger.tenant_guarantee_deltas() }}
    union all
    select
        tenant_classes.tenant_id,
        tenant_classes.gpu_class,
        periods.period_start_at as event_at,
        0.0 as allocated_delta,
        0.0 as reserved_delta
    from tenant_classes
    cross join periods
    union all
    select
        tenant_classes.tenant_id,
        tenant_classes.gpu_class,
        periods.period_end_at as event_at,
        0.0 as allocated_delta,
        0.0 as reserved_delta
    from tenant_classes
    cross join periods
),

events as (
    select
        tenant_id,
        gpu_class,
        event_at,
        sum(allocated_delta) as allocated_delta,
        sum(reserved_delta) as reserved_delta
    from deltas
    group by tenant_id, gpu_class, event_at
),

levels as (
    select
        tenant_id,
        gpu_class,
        event_at as interval_start_at,
        lead(event_at) over (partition by tenant_id, gpu_class order by event_at) as interval_end_at,
        round(sum(reserved_delta) over (
            partition by tenant_id, gpu_class order by event_at rows unbounded preceding
        ), 9) as reserved_gpus,
        round(sum(allocated_delta) over (
            partition by tenant_id, gpu_class order by event_at rows unbounded preceding
        ), 9) as allocated_gpu_equivalents
    from events
),

unused as (
    select
        *,
        greatest(reserved_gpus - allocated_gpu_equivalents, 0) as unused_reserved_gpus
    from levels
    where interval_end_at is not null
),

final as (
    select
        unused.tenant_id,
        unused.gpu_class,
        at_start.period,
        unused.interval_start_at,
        unused.interval_end_at,
        unused.reserved_gpus,
        unused.allocated_gpu_equivalents,
        unused.unused_reserved_gpus,
        unused.unused_reserved_gpus * (
            at_end.unused_scale_hours_before
            + at_end.unused_guarantee_scale * at_end.interval_hours
            - at_start.unused_scale_hours_before
        ) as unused_guarantee_gpu_hours
    from unused
    inner join timeline as at_start
        on
            unused.gpu_class = at_start.gpu_class
            and unused.interval_start_at = at_start.interval_start_at
    inner join timeline as at_end
        on
            unused.gpu_class = at_end.gpu_class
            and unused.interval_end_at = at_end.interval_end_at
    where unused.unused_reserved_gpus > 0
)

select * from final
