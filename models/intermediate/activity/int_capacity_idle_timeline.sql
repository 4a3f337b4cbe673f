{#- Per GPU class, the timeline cut at every device service, allocation segment, reservation,
    pending-request and period boundary; in each interval the free capacity (GPUs in service
    minus allocated GPU-equivalents) is partitioned, in this order, into
      1. reliability reserve: up to the class's reliability_reserve_gpus (payer: policy);
      2. fragmentation idle: up to the GPU-equivalents of requests then pending for the class
         (they waited while this capacity was free: it could not fit them; payer: platform);
      3. unused guarantee: up to the sum over tenants of reserved GPUs not allocated by the
         tenant itself, max(reserved - allocated, 0) (payer: the tenant);
      4. platform unallocated: the rest (payer: platform).
    Allocated beyond the GPUs in service is a negative capacity difference (suspense), so
    in service = allocated + the four classes + difference, interval by interval.

    The class timeline (int_class_timeline: in-service GPUs, allocated GPU-equivalents and
    reserved GPUs) is cut further where the pending demand or the tenants' unused reserved
    GPUs (int_tenant_class_timeline; each changes only at its tenant's own events) change:
    running sums of their deltas, and a running count of the class timeline's cuts names the
    class interval each piece lies in (O(n log n), no tenant x interval or range join). Where free
    capacity cannot cover all unused guarantees, each tenant keeps the same share of its own:
    unused_guarantee_scale = unused guarantee / the sum; its running integral
    (unused_scale_hours_before, a decimal of terms rounded to 1e-12 hours, as the borrowed
    integral of int_allocation_segments: a difference of two double running sums near 10^5
    hours keeps a residue where the scale was 0) lets int_unused_guarantee attribute the
    class's hours to tenants exactly.

    Built by period (gpuledger.by_period_config), as the class and tenant timelines it reads:
    each period it computes is swept on its own. The class timeline and the tenant timeline
    open every period with a row at its start (their levels there the whole timeline's); the
    pending requests open it with those pending across its start; a class's pieces are cut at
    the period's start and end. The running integral starts at 0 with each period (its
    differences within a period, which int_unused_guarantee takes, are the same exact
    decimals). -#}
{{ config(**gpuledger.by_period_config()) }}
with

pending as (
    select * from {{ ref('int_pending_gpu_demand') }}
    where {{ gpuledger.live_period('period') }}
),

reserves as (
    select * from {{ ref('stg_policy__reliability_reserves') }}
),

class_timeline as (
    select * from {{ ref('int_class_timeline') }}
    where {{ gpuledger.live_period('period') }}
),

tenant_timeline as (
    select * from {{ ref('int_tenant_class_timeline') }}
    where {{ gpuledger.live_period('period') }}
),

periods as (
    select * from {{ ref('int_periods') }}
    where {{ gpuledger.live_period('period') }}
),

numbered_class_timeline as (
    select
        *,
        row_number() over (
            partition by gpu_class, period order by interval_start_at
        ) as class_interval_number
    from class_timeline
),

unused_changes as (
    {#- only the changes: every tenant event is a class timeline cut already; a tenant's
        first row in the period changes from 0 (the level it opens the period with) -#}
    select
        tenant_timeline.gpu_class,
        tenant_timeline.period,
        tenant_timeline.interval_start_at as event_at,
        {{ gpuledger.change_in_period('tenant_timeline', 'unused_reserved_gpus') }} as unused_delta
    from tenant_timeline
    where tenant_timeline.period in (select periods.period from periods)
),

pending_periods as (
    {#- each request's wait in each period (int_pending_gpu_demand clips it to each period it
        overlaps: an end at the period's end or later changes nothing inside it) -#}
    select
        pending.period,
        pending.gpu_class,
        pending.demand_gpu_equivalents,
        pending.period_from_at as pending_from_at,
        pending.period_to_at as pending_to_at
    from pending
),

pending_classes as (
    select distinct
        gpu_class,
        period
    from pending_periods
),

deltas as (
    {#- the class timeline's cuts (counted, so that each interval knows the class interval it
        lies in) and ends, the pending requests and the tenants' unused guarantees -#}
    {%- for edge, cut in [('start', 1), ('end', 0)] %}
    select
        gpu_class,
        period,
        interval_{{ edge }}_at as event_at,
        {{ cut }} as class_cut,
        0.0 as pending_delta,
        0.0 as unused_delta
    from class_timeline
    union all
    {%- endfor %}
    {%- for edge, sign in [('from', ''), ('to', '-')] %}
    select
        gpu_class,
        period,
        pending_{{ edge }}_at as event_at,
        0 as class_cut,
        {{ sign }}demand_gpu_equivalents as pending_delta,
        0.0 as unused_delta
    from pending_periods
    union all
    {%- endfor %}
    {#- a class with pending requests but no class timeline in the period is cut there too #}
    {{ gpuledger.period_edges(
        'pending_classes', {'class_cut': '0', 'pending_delta': '0.0', 'unused_delta': '0.0'}
    ) }}
    union all
    select
        gpu_class,
        period,
        event_at,
        0 as class_cut,
        0.0 as pending_delta,
        cast(unused_delta as double) as unused_delta
    from unused_changes
    where unused_delta != 0
),

levels as (
    {{ gpuledger.event_levels(
        'deltas',
        partition_by=['gpu_class', 'period'],
        levels={
            'class_interval_number': 'class_cut',
            'pending_gpu_equivalents': 'pending_delta',
            'unused_reserved_gpus': 'unused_delta'
        },
        round_to=9
    ) }}
),

in_periods as (
    select
        levels.gpu_class,
        periods.period,
        levels.interval_start_at,
        levels.interval_end_at,
        cast(
            {{ gpuledger.seconds_between('levels.interval_start_at', 'levels.interval_end_at') }}
            as double
        ) / 3600 as interval_hours,
        coalesce(cast(class_levels.in_service_gpus as double), 0) as in_service_gpus,
        coalesce(cast(class_levels.allocated_gpu_equivalents as double), 0) as allocated_gpu_equivalents,
        coalesce(cast(class_levels.reserved_gpus as double), 0) as reserved_gpus,
        greatest(levels.pending_gpu_equivalents, 0) as pending_gpu_equivalents,
        greatest(levels.unused_reserved_gpus, 0) as unused_reserved_gpus,
        coalesce(cast(reserves.reliability_reserve_gpus as double), 0) as reliability_reserve_gpus
    from levels
    inner join periods
        on
            levels.period = periods.period
            and levels.interval_start_at >= periods.period_start_at
            and levels.interval_start_at < periods.period_end_at
    left join numbered_class_timeline as class_levels
        on
            levels.gpu_class = class_levels.gpu_class
            and levels.period = class_levels.period
            and levels.class_interval_number = class_levels.class_interval_number
            and levels.interval_start_at < class_levels.interval_end_at
    left join reserves
        on levels.gpu_class = reserves.gpu_class
    where levels.interval_end_at is not null
),

free as (
    select
        *,
        greatest(in_service_gpus - allocated_gpu_equivalents, 0) as free_gpus
    from in_periods
),

reserve_taken as (
    select
        *,
        least(reliability_reserve_gpus, free_gpus) as reserve_gpus
    from free
),

fragmentation_taken as (
    select
        *,
        least(pending_gpu_equivalents, free_gpus - reserve_gpus) as fragmentation_gpus
    from reserve_taken
),

guarantee_taken as (
    select
        *,
        least(unused_reserved_gpus, free_gpus - reserve_gpus - fragmentation_gpus)
            as unused_guarantee_gpus
    from fragmentation_taken
),

partitioned as (
    select
        *,
        free_gpus - reserve_gpus - fragmentation_gpus - unused_guarantee_gpus
            as platform_unallocated_gpus,
        least(in_service_gpus - allocated_gpu_equivalents, 0) as capacity_difference_gpus,
        case
            when unused_reserved_gpus > 0 then unused_guarantee_gpus / unused_reserved_gpus
            else 0
        end as unused_guarantee_scale
    from guarantee_taken
),

final as (
    select
        gpu_class,
        period,
        interval_start_at,
        interval_end_at,
        interval_hours,
        in_service_gpus,
        allocated_gpu_equivalents,
        reserved_gpus,
        pending_gpu_equivalents,
        unused_reserved_gpus,
        reliability_reserve_gpus,
        free_gpus,
        in_service_gpus * interval_hours as physical_gpu_hours,
        allocated_gpu_equivalents * interval_hours as allocated_gpu_hours,
        reserve_gpus * interval_hours as reliability_reserve_gpu_hours,
        fragmentation_gpus * interval_hours as fragmentation_idle_gpu_hours,
        unused_guarantee_gpus * interval_hours as unused_guarantee_gpu_hours,
        platform_unallocated_gpus * interval_hours as platform_unallocated_gpu_hours,
        capacity_difference_gpus * interval_hours as capacity_difference_gpu_hours,
        unused_guarantee_scale,
        {{ gpuledger.exact_running_sum(
            'unused_guarantee_scale * interval_hours', 'gpu_class, period', 'interval_start_at'
        ) }} as unused_scale_hours_before
    from partitioned
)

select * from final
