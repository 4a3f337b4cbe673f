{#- What the hardware did during each allocation segment: active-equivalent GPU-hours (the
    integral of capacity fraction x active ratio), how much of the segment telemetry covered,
    and the covered time split at the policy's idle_active_threshold.

    Hourly rollups (int_device_activity_hourly, int_node_telemetry_hourly) are joined to the
    segments on the same key and on the hours the segment touches; no sample is joined to a
    segment directly. Where telemetry is found, by allocation source:
    - Kubernetes whole GPU or MIG: DCGM series labelled with the pod (namespace/pod, on the
      pod's node when the series names a host); a MIG pod reads only MIG instance series,
      each with its own activity (the GPU-level series DCGM repeats on every instance are
      never used), a whole-GPU pod only GPU-level series. Basis pod_series. Or NVML
      processes of the pod's UID.
    - Kubernetes time-sliced replica: DCGM cannot tell replicas apart, so a replica is modeled
      as its capacity fraction x the mean active ratio of the node's GPUs. Basis
      node_mean_modeled. Or NVML processes of the pod's UID.
    - Slurm: the NVML sampler's processes whose cgroup names the job (raw job id) on any of
      the job's nodes, with the utilization of the devices they ran on. Basis process_devices.
    - vGPU: the host's samples of the vGPU instance. The host's ratio is a share of the
      physical GPU: normalized to the VM's share it is ratio / fraction, capped at 1, so the
      active-equivalent is the host ratio capped at the capacity fraction. Basis vgpu_instance.
    Coverage: for DCGM and vGPU, the seconds the workload's own series were sampled (divided
    by its device count); for NVML (and the modeled time-slice mean), the node's clean
    sampling rounds, because a workload without a process in a clean round was idle, not
    unseen. NVML has no utilization for MIG devices, so MIG allocations take no NVML evidence.
    When more than one source covers a segment, the one covering more of it is used (never a
    sum of two views of the same silicon).

    Approximation: a segment that shares a clock hour with another segment of the same key (an
    ownership or period cut inside the hour, or a reused pod name) takes the hour's keyed
    telemetry in proportion to its seconds in that hour; node-level coverage is spread evenly
    over its hour. Totals per allocation are exact for keyed telemetry; per segment the error
    is confined to its first and last clock hour: at most 2 x gpu_equivalents GPU-hours of
    active-equivalent or covered time, whatever the segment's length.

    Inactive: a covered hour-piece whose active-equivalent is below idle_active_threshold x
    its covered GPU-equivalent time. Its covered GPU-hours are inactive, split into borrowed
    idle (the segment's borrowed share) and allocated-inactive.

    Built by period (gpuledger.core.period_scope): a segment's activity is its own. -#}
{{ config(**gpuledger.by_period_config()) }}
with

segments as (
    select * from {{ ref('int_allocation_segments') }}
    where {{ gpuledger.live_period('period') }}
),

device_hours as (
    select * from {{ ref('int_device_activity_hourly') }}
),

node_hours as (
    select * from {{ ref('int_node_telemetry_hourly') }}
),

settings as (
    select * from {{ ref('stg_policy__settings') }}
),

keyed as (
    {#- the keys telemetry knows the segment's workload by (int_allocations) -#}
    select
        segment_id,
        source_system,
        sharing_mode,
        node_name,
        gpu_uuid,
        device_count,
        capacity_fraction,
        gpu_equivalents,
        segment_start_at,
        segment_end_at,
        pod_key,
        pod_uid,
        slurm_job_id_raw,
        node_names,
        node_count,
        vgpu_uuid
    from segments
),

nvml_hosts as (
    select distinct node_name from node_hours
    where activity_source = 'nvml'
),

nvml_segment_nodes as (
    {#- the nodes and owner key NVML knows each segment's workload by -#}
    select
        segment_id,
        node_name,
        'slurm_job' as owner_kind,
        slurm_job_id_raw as owner_key
    from keyed
    where
        source_system = 'slurm'
        and sharing_mode != 'mig'
        and node_count = 1
    union all
    select
        keyed.segment_id,
        nvml_hosts.node_name,
        'slurm_job' as owner_kind,
        keyed.slurm_job_id_raw as owner_key
    from keyed
    inner join nvml_hosts
        on position(',' || nvml_hosts.node_name || ',' in ',' || keyed.node_names || ',') > 0
    where
        keyed.source_system = 'slurm'
        and keyed.sharing_mode != 'mig'
        and keyed.node_count > 1
    union all
    select
        segment_id,
        node_name,
        'k8s_pod_uid' as owner_kind,
        pod_uid as owner_key
    from keyed
    where
        source_system = 'kubernetes'
        and sharing_mode != 'mig'
        and pod_uid is not null
),

{%- set device_overlap = gpuledger.seconds_between(
    'greatest(keyed.segment_start_at, device_hours.hour_start_at)',
    'least(keyed.segment_end_at, device_hours.hour_start_at + interval 1 hour)'
) -%}
{%- set node_overlap = gpuledger.seconds_between(
    'greatest(keyed.segment_start_at, node_hours.hour_start_at)',
    'least(keyed.segment_end_at, node_hours.hour_start_at + interval 1 hour)'
) %}

nvml_coverage as (
    {#- the job's nodes' clean rounds, averaged over its nodes, spread evenly over the hour -#}
    select
        keyed.segment_id,
        node_hours.hour_start_at,
        {{ gpuledger.exact_sum(node_overlap ~ ' * node_hours.covered_seconds / 3600.0') }}
        / max(keyed.node_count) as covered_seconds
    from nvml_segment_nodes
    inner join keyed
        on nvml_segment_nodes.segment_id = keyed.segment_id
    inner join node_hours
        on
            node_hours.activity_source = 'nvml'
            and nvml_segment_nodes.node_name = node_hours.node_name
            and node_hours.hour_start_at >= date_trunc('hour', keyed.segment_start_at)
            and keyed.segment_end_at > node_hours.hour_start_at
    group by keyed.segment_id, node_hours.hour_start_at
),

nvml_owner_hours as (
    select
        nvml_segment_nodes.segment_id,
        nvml_segment_nodes.owner_key || '@' || nvml_segment_nodes.node_name as share_key,
        device_hours.hour_start_at,
        max(keyed.capacity_fraction) as capacity_fraction,
        max({{ device_overlap }}) as overlap_seconds,
        {{ gpuledger.exact_sum('device_hours.active_seconds') }} as active_device_seconds
    from nvml_segment_nodes
    inner join keyed
        on nvml_segment_nodes.segment_id = keyed.segment_id
    inner join device_hours
        on
            device_hours.activity_source = 'nvml'
            and nvml_segment_nodes.owner_kind = device_hours.owner_kind
            and nvml_segment_nodes.owner_key = device_hours.owner_key
            and nvml_segment_nodes.node_name = device_hours.node_name
            and device_hours.hour_start_at >= date_trunc('hour', keyed.segment_start_at)
            and keyed.segment_end_at > device_hours.hour_start_at
    group by
        nvml_segment_nodes.segment_id,
        nvml_segment_nodes.owner_key || '@' || nvml_segment_nodes.node_name,
        device_hours.hour_start_at
),

nvml_activity as (
    select
        segment_id,
        hour_start_at,
        {{ gpuledger.exact_sum(
            'cast(capacity_fraction as double) * active_device_seconds * overlap_seconds'
            ~ ' / share_seconds'
        ) }} as active_gpu_seconds
    from (
        select
            *,
            {{ gpuledger.exact_sum('overlap_seconds', over='partition by share_key, hour_start_at') }}
                as share_seconds
        from nvml_owner_hours
    ) as owner_hours
    group by segment_id, hour_start_at
),

nvml_pieces as (
    select
        nvml_coverage.segment_id,
        'nvml' as activity_source,
        'process_devices' as activity_basis,
        nvml_coverage.hour_start_at,
        nvml_coverage.covered_seconds,
        coalesce(nvml_activity.active_gpu_seconds, 0) as active_gpu_seconds
    from nvml_coverage
    left join nvml_activity
        on
            nvml_coverage.segment_id = nvml_activity.segment_id
            and nvml_coverage.hour_start_at = nvml_activity.hour_start_at
),

{#- the series a segment's own key names, by source: DCGM series labelled with its pod (a MIG
    pod's MIG instance series, a whole-GPU pod's GPU-level series), the vGPU host's series of
    its instance -#}
{%- set keyed_sources = [
    {
        'activity_source': 'dcgm',
        'activity_basis': 'pod_series',
        'owner_kind': 'k8s_pod',
        'owner_key': 'keyed.pod_key',
        'share_key': "keyed.pod_key || '@' || keyed.node_name",
        'matches': [
            'coalesce(device_hours.node_name, keyed.node_name) = keyed.node_name',
            "device_hours.is_mig_instance = (keyed.sharing_mode = 'mig')"
        ],
        'segments': "keyed.source_system = 'kubernetes' and keyed.sharing_mode in ('whole', 'mig')"
    },
    {
        'activity_source': 'vgpu_host',
        'activity_basis': 'vgpu_instance',
        'owner_kind': 'vgpu',
        'owner_key': 'keyed.vgpu_uuid',
        'share_key': 'keyed.vgpu_uuid',
        'matches': ['keyed.gpu_uuid = device_hours.gpu_uuid'],
        'segments': "keyed.source_system = 'vgpu'"
    }
] %}

keyed_hours as (
    {#- a keyed hour shared by several segments of the same key goes to each in proportion
        to its seconds in the hour -#}
    {%- for source in keyed_sources %}
    select
        keyed.segment_id,
        '{{ source.activity_source }}' as activity_source,
        '{{ source.activity_basis }}' as activity_basis,
        {{ source.share_key }} as share_key,
        device_hours.hour_start_at,
        max(keyed.device_count) as device_count,
        max(keyed.capacity_fraction) as capacity_fraction,
        max({{ device_overlap }}) as overlap_seconds,
        {{ gpuledger.exact_sum('device_hours.covered_seconds') }} as covered_device_seconds,
        {{ gpuledger.exact_sum('device_hours.active_seconds') }} as active_device_seconds
    from keyed
    inner join device_hours
        on
            device_hours.activity_source = '{{ source.activity_source }}'
            and device_hours.owner_kind = '{{ source.owner_kind }}'
            and {{ source.owner_key }} = device_hours.owner_key
            {%- for match in source.matches %}
            and {{ match }}
            {%- endfor %}
            and device_hours.hour_start_at >= date_trunc('hour', keyed.segment_start_at)
            and keyed.segment_end_at > device_hours.hour_start_at
    where {{ source.segments }}
    group by keyed.segment_id, {{ source.share_key }}, device_hours.hour_start_at
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}
),

keyed_shares as (
    select
        *,
        overlap_seconds / {{ gpuledger.exact_sum(
            'overlap_seconds', over='partition by activity_source, share_key, hour_start_at'
        ) }} as hour_share
    from keyed_hours
),

keyed_pieces as (
    {#- DCGM: fraction x the pod's device activity; vGPU: the host's physical share as is -#}
    select
        segment_id,
        activity_source,
        activity_basis,
        hour_start_at,
        least(overlap_seconds, hour_share * covered_device_seconds / device_count)
            as covered_seconds,
        case
            when activity_basis = 'vgpu_instance' then hour_share * active_device_seconds
            else cast(capacity_fraction as double) * hour_share * active_device_seconds
        end as active_gpu_seconds
    from keyed_shares
),

modeled_pieces as (
    {#- a time-sliced replica: its fraction x the node's mean ratio over the covered time -#}
    select
        keyed.segment_id,
        'dcgm' as activity_source,
        'node_mean_modeled' as activity_basis,
        node_hours.hour_start_at,
        {{ node_overlap }} * node_hours.covered_seconds / 3600.0 as covered_seconds,
        cast(keyed.gpu_equivalents as double) * coalesce(node_hours.mean_active_ratio, 0)
        * {{ node_overlap }} * node_hours.covered_seconds / 3600.0 as active_gpu_seconds
    from keyed
    inner join node_hours
        on
            node_hours.activity_source = 'dcgm'
            and keyed.node_name = node_hours.node_name
            and node_hours.hour_start_at >= date_trunc('hour', keyed.segment_start_at)
            and keyed.segment_end_at > node_hours.hour_start_at
    where keyed.source_system = 'kubernetes' and keyed.sharing_mode = 'timeslice'
),

candidate_pieces as (
    select * from nvml_pieces
    union all
    select * from keyed_pieces
    union all
    select * from modeled_pieces
),

pieces as (
    select
        candidate_pieces.segment_id,
        candidate_pieces.activity_source,
        candidate_pieces.activity_basis,
        candidate_pieces.hour_start_at,
        keyed.gpu_equivalents,
        candidate_pieces.covered_seconds,
        least(
            candidate_pieces.active_gpu_seconds,
            cast(keyed.gpu_equivalents as double) * candidate_pieces.covered_seconds
        ) as active_gpu_seconds
    from candidate_pieces
    inner join keyed
        on candidate_pieces.segment_id = keyed.segment_id
),

classified as (
    select
        pieces.*,
        case
            when
                pieces.covered_seconds > 0
                and pieces.active_gpu_seconds
                < cast(settings.idle_active_threshold as double)
                * cast(pieces.gpu_equivalents as double) * pieces.covered_seconds
                then pieces.covered_seconds
            else 0
        end as inactive_seconds
    from pieces
    cross join settings
),

by_source as (
    select
        segment_id,
        activity_source,
        min(activity_basis) as activity_basis,
        {{ gpuledger.exact_sum('covered_seconds') }} as covered_seconds,
        {{ gpuledger.exact_sum('active_gpu_seconds') }} as active_gpu_seconds,
        {{ gpuledger.exact_sum('inactive_seconds') }} as inactive_seconds,
        row_number() over (
            partition by segment_id
            order by
                {{ gpuledger.exact_sum('covered_seconds') }} desc,
                case activity_source when 'dcgm' then 1 when 'vgpu_host' then 2 else 3 end
        ) as source_rank
    from classified
    group by segment_id, activity_source
),

chosen as (
    select * from by_source
    where source_rank = 1 and covered_seconds > 0
),

measures as (
    select
        segments.*,
        settings.idle_active_threshold,
        {{ gpuledger.seconds_between('segments.segment_start_at', 'segments.segment_end_at') }}
            as segment_seconds,
        coalesce(chosen.activity_source, 'none') as activity_source,
        chosen.activity_basis,
        coalesce(chosen.covered_seconds, 0) as raw_covered_seconds,
        coalesce(chosen.active_gpu_seconds, 0) as active_gpu_seconds,
        coalesce(chosen.inactive_seconds, 0) as raw_inactive_seconds
    from segments
    cross join settings
    left join chosen
        on segments.segment_id = chosen.segment_id
),

bounded as (
    select
        *,
        least(raw_covered_seconds, segment_seconds) as covered_seconds,
        least(raw_inactive_seconds, segment_seconds) as inactive_seconds
    from measures
),

final as (
    select
        segment_id,
        allocation_id,
        workload_id,
        source_system,
        period,
        tenant_id,
        gpu_class,
        node_name,
        sharing_mode,
        profile,
        device_count,
        capacity_fraction,
        gpu_equivalents,
        confidence,
        segment_start_at,
        segment_end_at,
        gpu_hours,
        guaranteed_gpu_hours,
        borrowed_gpu_hours,
        activity_source,
        activity_basis,
        round(covered_seconds, 3) as telemetry_covered_seconds,
        round(covered_seconds / segment_seconds, 9) as telemetry_coverage_ratio,
        round(active_gpu_seconds / 3600.0, 9) as active_equivalent_gpu_hours,
        case
            when covered_seconds > 0
                then round(active_gpu_seconds / (cast(gpu_equivalents as double) * covered_seconds), 9)
        end as mean_active_ratio,
        idle_active_threshold,
        round(gpu_hours * covered_seconds / segment_seconds, 9) as covered_gpu_hours,
        round(gpu_hours * (covered_seconds - inactive_seconds) / segment_seconds, 9) as in_use_gpu_hours,
        round(gpu_hours * inactive_seconds / segment_seconds, 9) as inactive_gpu_hours,
        round(
            case when gpu_hours > 0 then inactive_seconds / segment_seconds * borrowed_gpu_hours else 0 end, 9
        ) as borrowed_idle_gpu_hours,
        round(
            case when gpu_hours > 0 then inactive_seconds / segment_seconds * guaranteed_gpu_hours else 0 end, 9
        ) as allocated_inactive_gpu_hours,
        round(gpu_hours * (segment_seconds - covered_seconds) / segment_seconds, 9)
            as telemetry_unknown_gpu_hours
    from bounded
)

select * from final
