{#- Conservation of capacity at every instant: on each physical GPU the capacity fractions
    allocated on it add up to at most 1, and on each node to at most the GPUs it has in
    service. One row per finding: a scope (device or node), an interval in which the sum
    exceeds the capacity, and the kind of excess.

    - device: vGPU assignments name their physical GPU (host view), and so do the pieces of a
      time-sliced replica the NVML sampler mapped to a GPU (int_timeslice_process_shares);
      the fractions on one GPU must fit in 1 while it is in service. There, process-mapped
      shares are measured, so an excess they make is a violation.
    - node: Slurm jobs, Kubernetes pods and vGPU VMs name a node; a job spanning several nodes
      (node_count, node_names) holds its GPU-equivalents evenly over its nodes (sacct names
      nodes, not GPUs).
    The sweep is per scope (device or node), not per tenant and class: placements and
    capacities are its events (gpuledger.event_levels).
    Allocations on nodes missing from the inventory are not here (no_orphan_allocations).

    Time-sliced replicas share a GPU by declaration (capacity fraction 1 / replicas, modeled);
    on a node, process-mapped pieces count with them (the node's modeled replicas may sit on
    the same GPU). The part of an excess the declared sharing accounts for is reported as
    oversubscribed_timeslice (is_declared_oversubscription), not as a violation. The part the
    other allocations alone exceed the capacity by is a violation. A tolerance of 1e-5
    GPU-equivalents absorbs profile weights rounded to six decimals (7 x 0.142857).

    Built by period (gpuledger.core.period_scope): every period start is an event of every
    scope and no segment crosses one, so the levels within a period are its own segments'
    (and the capacities'), rounded to 1e-9: a build that keeps frozen periods sweeps the
    segments of the periods it computes. -#}
{{ config(**gpuledger.by_period_config()) }}
with

segments as (
    select * from {{ ref('int_allocation_segments_split') }}
    where {{ gpuledger.live_period('period') }}
),

devices as (
    select * from {{ ref('int_devices_classified') }}
),

nodes as (
    select * from {{ ref('int_nodes') }}
),

periods as (
    select * from {{ ref('int_periods') }}
),

placed_on_nodes as (
    select
        segments.segment_id,
        segments.node_name,
        segments.sharing_mode in ('timeslice', 'process') as is_declared_sharing,
        segments.segment_start_at,
        segments.segment_end_at,
        cast(segments.gpu_equivalents as double) as gpu_equivalents
    from segments
    where segments.node_count <= 1
    union all
    select
        segments.segment_id,
        nodes.node_name,
        segments.sharing_mode in ('timeslice', 'process') as is_declared_sharing,
        segments.segment_start_at,
        segments.segment_end_at,
        cast(segments.gpu_equivalents as double) / segments.node_count as gpu_equivalents
    from segments
    inner join nodes
        on position(',' || nodes.node_name || ',' in ',' || segments.node_names || ',') > 0
    where segments.node_count > 1
),

placements as (
    select
        'node' as scope_type,
        placed_on_nodes.node_name as scope_key,
        placed_on_nodes.node_name,
        placed_on_nodes.is_declared_sharing,
        placed_on_nodes.segment_start_at,
        placed_on_nodes.segment_end_at,
        placed_on_nodes.gpu_equivalents
    from placed_on_nodes
    inner join nodes
        on placed_on_nodes.node_name = nodes.node_name
    union all
    select
        'device' as scope_type,
        segments.gpu_uuid as scope_key,
        segments.node_name,
        segments.sharing_mode = 'timeslice' as is_declared_sharing,
        segments.segment_start_at,
        segments.segment_end_at,
        cast(segments.gpu_equivalents as double) as gpu_equivalents
    from segments
    inner join devices
        on segments.gpu_uuid = devices.gpu_uuid
),

capacities as (
    select
        'node' as scope_type,
        node_name as scope_key,
        node_name,
        in_service_from_at,
        in_service_to_at
    from devices
    union all
    select
        'device' as scope_type,
        devices.gpu_uuid as scope_key,
        devices.node_name,
        devices.in_service_from_at,
        devices.in_service_to_at
    from devices
    where devices.gpu_uuid in (
        select placements.scope_key from placements
        where placements.scope_type = 'device'
    )
),

scopes as (
    select distinct
        scope_type,
        scope_key,
        node_name
    from placements
),

deltas as (
    select
        scope_type,
        scope_key,
        segment_start_at as event_at,
        0.0 as capacity_delta,
        case when is_declared_sharing then 0.0 else gpu_equivalents end as exclusive_delta,
        case when is_declared_sharing then gpu_equivalents else 0.0 end as timeslice_delta,
        1 as allocation_delta
    from placements
    union all
    select
        scope_type,
        scope_key,
        segment_end_at as event_at,
        0.0 as capacity_delta,
        case when is_declared_sharing then 0.0 else -gpu_equivalents end as exclusive_delta,
        case when is_declared_sharing then -gpu_equivalents else 0.0 end as timeslice_delta,
        -1 as allocation_delta
    from placements
    union all
    select
        scope_type,
        scope_key,
        in_service_from_at as event_at,
        1.0 as capacity_delta,
        0.0 as exclusive_delta,
        0.0 as timeslice_delta,
        0 as allocation_delta
    from capacities
    union all
    select
        scope_type,
        scope_key,
        in_service_to_at as event_at,
        -1.0 as capacity_delta,
        0.0 as exclusive_delta,
        0.0 as timeslice_delta,
        0 as allocation_delta
    from capacities
    where in_service_to_at is not null
    union all
    select
        scopes.scope_type,
        scopes.scope_key,
        periods.period_start_at as event_at,
        0.0 as capacity_delta,
        0.0 as exclusive_delta,
        0.0 as timeslice_delta,
        0 as allocation_delta
    from scopes
    cross join periods
),

levels as (
    {{ gpuledger.event_levels(
        'deltas',
        partition_by=['scope_type', 'scope_key'],
        levels={
            'capacity_gpus': 'capacity_delta',
            'exclusive_gpu_equivalents': 'exclusive_delta',
            'timeslice_gpu_equivalents': 'timeslice_delta',
            'allocation_count': 'allocation_delta'
        },
        round_to=9
    ) }}
),

excess as (
    select
        levels.*,
        periods.period,
        cast(
            {{ gpuledger.seconds_between('levels.interval_start_at', 'levels.interval_end_at') }}
            as double
        ) / 3600 as interval_hours,
        greatest(levels.exclusive_gpu_equivalents - levels.capacity_gpus, 0) as violation_gpu_equivalents,
        greatest(
            levels.exclusive_gpu_equivalents + levels.timeslice_gpu_equivalents - levels.capacity_gpus, 0
        ) - greatest(levels.exclusive_gpu_equivalents - levels.capacity_gpus, 0)
            as oversubscribed_gpu_equivalents
    from levels
    inner join periods
        on
            levels.interval_start_at >= periods.period_start_at
            and levels.interval_start_at < periods.period_end_at
    where levels.interval_end_at is not null
),

findings as (
    select
        *,
        'violation' as finding,
        violation_gpu_equivalents as excess_gpu_equivalents
    from excess
    where violation_gpu_equivalents > 0.00001
    union all
    select
        *,
        'oversubscribed_timeslice' as finding,
        oversubscribed_gpu_equivalents as excess_gpu_equivalents
    from excess
    where oversubscribed_gpu_equivalents > 0.00001
),

final as (
    select
        {{ surrogate_key([
            'findings.scope_type', 'findings.scope_key', 'findings.interval_start_at', 'findings.finding'
        ]) }} as conservation_finding_id,
        findings.period,
        findings.scope_type,
        scopes.node_name,
        case when findings.scope_type = 'device' then findings.scope_key end as gpu_uuid,
        findings.interval_start_at,
        findings.interval_end_at,
        findings.interval_hours,
        findings.capacity_gpus,
        findings.exclusive_gpu_equivalents + findings.timeslice_gpu_equivalents
            as allocated_gpu_equivalents,
        findings.timeslice_gpu_equivalents,
        findings.allocation_count,
        findings.finding,
        findings.finding = 'oversubscribed_timeslice' as is_declared_oversubscription,
        findings.excess_gpu_equivalents,
        findings.excess_gpu_equivalents * findings.interval_hours as excess_gpu_hours
    from findings
    inner join scopes
        on findings.scope_type = scopes.scope_type and findings.scope_key = scopes.scope_key
)

select * from final
