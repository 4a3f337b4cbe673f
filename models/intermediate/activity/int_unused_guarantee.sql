{#- Unused guarantee per tenant: one row per tenant, GPU class and interval between the
    tenant's own events in the class (int_tenant_class_timeline: its allocations starting or
    ending, its reservations changing, period boundaries) while it had reserved GPUs it did
    not allocate itself.
    The idle capacity the class timeline classified as unused guarantee is shared among
    tenants in proportion to their unused reserved GPUs at each instant:
    unused_guarantee_gpu_hours = unused reserved GPUs x the integral of the class's
    unused_guarantee_scale over the interval (a difference of its running integral), so the
    tenants' rows add up to the class's unused guarantee exactly. Built by period
    (gpuledger.by_period_config): a tenant's interval lies in one period, as the class
    timeline's pieces at its ends. -#}
{{ config(**gpuledger.by_period_config()) }}
with

tenant_timeline as (
    select * from {{ ref('int_tenant_class_timeline') }}
    where {{ gpuledger.live_period('period') }}
),

timeline as (
    select * from {{ ref('int_capacity_idle_timeline') }}
    where {{ gpuledger.live_period('period') }}
),

unused as (
    select * from tenant_timeline
    where interval_end_at is not null and unused_reserved_gpus > 0
),

final as (
    select
        unused.tenant_id,
        unused.gpu_class,
        at_start.period,
        unused.interval_start_at,
        unused.interval_end_at,
        cast(unused.reserved_gpus as double) as reserved_gpus,
        cast(unused.allocated_gpu_equivalents as double) as allocated_gpu_equivalents,
        cast(unused.unused_reserved_gpus as double) as unused_reserved_gpus,
        cast(unused.unused_reserved_gpus as double) * cast(
            at_end.unused_scale_hours_before
            + {{ gpuledger.exact_term('at_end.unused_guarantee_scale * at_end.interval_hours') }}
            - at_start.unused_scale_hours_before
            as double
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
)

select * from final
