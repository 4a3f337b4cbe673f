{{ config(
    **gpuledger.by_day_incremental_config('hour_day', 'hour_start_at')
) }}

{#- Device telemetry rolled up per clock hour, the only grain later models read (a fleet
    month of one-minute samples becomes one row per device, owner and hour).

    Each sample covers [sampled_at, sampled_at + interval): NVML and the vGPU host sampler
    state their interval; a DCGM series (through Prometheus) has none, so its interval is the
    step of the device's own series: the smaller of the gaps to its previous and next sample
    (an outage before or after a sample does not stretch it), capped at 3600 s; a gap longer
    than the cap, or no neighbour at all, counts as the cap. A sample that crosses an hour
    boundary is split exactly between the two hours (the cap keeps it to two).

    Incremental by UTC days of hours (hour_day): a build rebuilds the days its new batches
    touch (gpuledger.core.incremental), on DuckDB from the first hour their samples reach to
    the last (a piece replaces the rows of its hours, hour_start_at). The hours of a piece
    take the samples from an hour before it (an interval runs at most an hour into the next)
    and their neighbours another hour out (a farther one counts as the cap either way), so
    hours rebuilt alone equal the same hours of a full build.

    Owners, one row per owner the sample names:
    - dcgm: the pod labels dcgm-exporter attached (`namespace/pod`, owner_kind k8s_pod), else
      none. MIG parent rows are left out: DCGM repeats GPU-level series on every MIG instance
      and staging keeps them once on a parent row without activity, so only instance rows
      (device_instance_id = GPU_I_ID) carry a MIG instance's activity.
    - nvml: the owners of the device's compute processes in that round (slurm_job: the raw job
      id; k8s_pod_uid: the pod UID; other: a process outside any scheduler; unresolved: a
      process whose cgroup could not be read), else none. The ratio is the device's own utilization (NVML has none for MIG devices, so
      their samples are not activity evidence). Errored rounds are not coverage.
    - vgpu_host: the vGPU instance (owner_key = vGPU UUID); its ratio is the host's reading,
      a share of the physical GPU.
    active_seconds = sum of active ratio x covered seconds. -#}
with

dcgm as (
    select * from {{ ref('stg_prometheus__gpu_activity') }}
    where {{ gpuledger.rebuild_window('sampled_at', 7200, 3600) }}
),

nvml_samples as (
    select * from {{ ref('stg_nvml__samples') }}
    where {{ gpuledger.rebuild_window('sampled_at', 3600) }}
),

nvml_processes as (
    select * from {{ ref('stg_nvml__processes') }}
),

vgpu as (
    select * from {{ ref('stg_vgpu__samples') }}
    where {{ gpuledger.rebuild_window('sampled_at', 3600) }}
),

dcgm_spaced as (
    select
        hostname as node_name,
        gpu_uuid,
        coalesce(gpu_instance_id, '') as device_instance_id,
        is_mig_instance,
        pod_name,
        namespace_name,
        sampled_at,
        active_ratio,
        {{ gpuledger.seconds_between(
            'lag(sampled_at) over (partition by gpu_uuid, gpu_instance_id order by sampled_at)',
            'sampled_at'
        ) }} as previous_gap_seconds,
        {{ gpuledger.seconds_between(
            'sampled_at',
            'lead(sampled_at) over (partition by gpu_uuid, gpu_instance_id order by sampled_at)'
        ) }} as next_gap_seconds
    from dcgm
    where not is_mig_parent
),

dcgm_samples as (
    select
        'dcgm' as activity_source,
        node_name,
        gpu_uuid,
        device_instance_id,
        is_mig_instance,
        case when pod_name is not null then 'k8s_pod' else 'none' end as owner_kind,
        case
            when pod_name is not null then coalesce(namespace_name, '') || '/' || pod_name
            else ''
        end as owner_key,
        sampled_at,
        least(coalesce(previous_gap_seconds, 3600), coalesce(next_gap_seconds, 3600), 3600)
            as interval_seconds,
        active_ratio
    from dcgm_spaced
    where active_ratio is not null
),

nvml_owners as (
    select distinct
        device_uuid,
        sampled_at,
        case
            when owner_kind = 'slurm_job' and slurm_job_id is not null then 'slurm_job'
            when owner_kind = 'k8s_pod' and pod_uid is not null then 'k8s_pod_uid'
            when owner_kind = 'other' then 'other'
            else 'unresolved'
        end as owner_kind,
        case
            when owner_kind = 'slurm_job' and slurm_job_id is not null then slurm_job_id
            when owner_kind = 'k8s_pod' and pod_uid is not null then pod_uid
            else ''
        end as owner_key
    from nvml_processes
),

nvml_owned as (
    select
        'nvml' as activity_source,
        nvml_samples.node_name,
        nvml_samples.gpu_uuid,
        coalesce(cast(nvml_samples.gpu_instance_id as {{ dbt.type_string() }}), '')
            as device_instance_id,
        nvml_samples.is_mig as is_mig_instance,
        coalesce(nvml_owners.owner_kind, 'none') as owner_kind,
        coalesce(nvml_owners.owner_key, '') as owner_key,
        nvml_samples.sampled_at,
        least(nvml_samples.interval_seconds, 3600) as interval_seconds,
        nvml_samples.gpu_active_ratio as active_ratio
    from nvml_samples
    left join nvml_owners
        on
            nvml_samples.device_uuid = nvml_owners.device_uuid
            and nvml_samples.sampled_at = nvml_owners.sampled_at
    where not nvml_samples.has_error and nvml_samples.gpu_active_ratio is not null
),

vgpu_samples as (
    select
        'vgpu_host' as activity_source,
        node_name,
        gpu_uuid,
        vgpu_uuid as device_instance_id,
        false as is_mig_instance,
        'vgpu' as owner_kind,
        vgpu_uuid as owner_key,
        sampled_at,
        least(interval_seconds, 3600) as interval_seconds,
        sm_active_ratio as active_ratio
    from vgpu
    where sm_active_ratio is not null
),

samples as (
    select * from dcgm_samples
    union all
    select * from nvml_owned
    union all
    select * from vgpu_samples
),

placed as (
    select
        *,
        date_trunc('hour', sampled_at) as hour_start_at,
        3600 - {{ gpuledger.seconds_between("date_trunc('hour', sampled_at)", 'sampled_at') }}
            as seconds_left_in_hour
    from samples
    where interval_seconds > 0
),

pieces as (
    {#- a sample's interval in its own clock hour, and the part that runs into the next -#}
    {%- set device_columns = [
        'activity_source', 'node_name', 'gpu_uuid', 'device_instance_id', 'is_mig_instance', 'owner_kind', 'owner_key'
    ] %}
    select
        {{ device_columns | join(', ') }},
        hour_start_at,
        least(interval_seconds, seconds_left_in_hour) as covered_seconds,
        active_ratio
    from placed
    union all
    select
        {{ device_columns | join(', ') }},
        hour_start_at + interval 1 hour as hour_start_at,
        interval_seconds - seconds_left_in_hour as covered_seconds,
        active_ratio
    from placed
    where interval_seconds > seconds_left_in_hour
),

final as (
    select
        {{ surrogate_key([
            'activity_source', 'gpu_uuid', 'device_instance_id', 'owner_kind', 'owner_key',
            'hour_start_at'
        ]) }} as device_activity_hour_id,
        activity_source,
        max(node_name) as node_name,
        gpu_uuid,
        device_instance_id,
        bool_or(is_mig_instance) as is_mig_instance,
        owner_kind,
        owner_key,
        hour_start_at,
        count(*) as sample_count,
        {{ gpuledger.exact_sum('covered_seconds') }} as covered_seconds,
        {{ gpuledger.exact_sum('covered_seconds * active_ratio') }} as active_seconds,
        cast(hour_start_at as date) as hour_day
    from pieces
    where {{ gpuledger.rebuild_window('hour_start_at') }}
    group by
        activity_source, gpu_uuid, device_instance_id, owner_kind, owner_key, hour_start_at
)

select * from final
