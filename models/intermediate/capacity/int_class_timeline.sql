{#- Per GPU class, the timeline cut at every allocation, device service and reservation
    boundary and at every period start and end: in each interval the in-service GPUs, the
    allocated GPU-equivalents and the reserved GPUs are constant. The same sweep as the
    tenants' (int_tenant_class_timeline) at the class's grain: a class's levels are the sums of
    its tenants' levels, plus the devices in service; running sums (O(n log n), no range
    join). Feeds the instant-level checks and int_capacity_idle_timeline.

    Built by period (gpuledger.by_period_config): each period it computes is swept on its own
    from the tenant timeline's rows of that period. The tenant timeline opens every period with
    a row at its start for each tenant and class with a segment or reservation in it (its
    levels there the whole timeline's), so a class opens the period with the sum of those
    levels and changes by its tenants' deltas after; the devices open it with those in service
    at its start. A class has rows in a period where it has devices (in service or not, the
    inventory's classes) or tenant rows there: a class known only from allocations or
    reservations of other periods adds no rows (all its levels would be 0), so a period's rows
    depend on its own tenant rows, the inventory and the policy alone. -#}
{{ config(**gpuledger.by_period_config()) }}
with

tenant_timeline as (
    select * from {{ ref('int_tenant_class_timeline') }}
    where {{ gpuledger.live_period('period') }}
),

devices as (
    select * from {{ ref('int_devices_classified') }}
),

periods as (
    select * from {{ ref('int_periods') }}
    where {{ gpuledger.live_period('period') }}
),

tenant_levels as (
    {#- each tenant row's change from the row before it in the period (its first row: from 0,
        the levels it opens the period with) -#}
    select
        tenant_timeline.gpu_class,
        tenant_timeline.period,
        tenant_timeline.interval_start_at as event_at,
        {{ gpuledger.change_in_period('tenant_timeline', 'allocated_gpu_equivalents') }} as allocated_delta,
        {{ gpuledger.change_in_period('tenant_timeline', 'reserved_gpus') }} as reserved_delta
    from tenant_timeline
    where tenant_timeline.period in (select periods.period from periods)
),

in_service as (
    {#- each device's in-service interval clipped to each period it overlaps -#}
    {{ gpuledger.clipped_to_periods(
        'devices', 'in_service_from_at', 'in_service_to_at', ['gpu_class']
    ) }}
),

classes as (
    select distinct
        gpu_class,
        period
    from tenant_levels
    union
    select
        devices.gpu_class,
        periods.period
    from devices
    cross join periods
),

deltas as (
    select
        gpu_class,
        period,
        event_at,
        allocated_delta,
        0 as device_delta,
        reserved_delta
    from tenant_levels
    union all
    {#- the devices in service at the period's start, then those entering and leaving in it
        (one leaving at the period's end or later changes nothing inside it) #}
    {%- for edge, delta in [('from', 1), ('to', -1)] %}
    select
        gpu_class,
        period,
        {{ edge }}_at as event_at,
        0 as allocated_delta,
        {{ delta }} as device_delta,
        0 as reserved_delta
    from in_service
    union all
    {%- endfor %}
    {{ gpuledger.period_edges(
        'classes', {'allocated_delta': '0', 'device_delta': '0', 'reserved_delta': '0'}
    ) }}
),

levels as (
    {{ gpuledger.event_levels(
        'deltas',
        partition_by=['gpu_class', 'period'],
        levels={
            'in_service_gpus': 'device_delta',
            'allocated_gpu_equivalents': 'allocated_delta',
            'reserved_gpus': 'reserved_delta'
        }
    ) }}
),

final as (
    select
        gpu_class,
        period,
        interval_start_at,
        interval_end_at,
        {{ gpuledger.hours_between('interval_start_at', 'interval_end_at') }} as interval_hours,
        in_service_gpus,
        allocated_gpu_equivalents,
        reserved_gpus
    from levels
    where interval_end_at is not null
)

select * from final
