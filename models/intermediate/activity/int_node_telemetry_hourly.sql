{{ config(
    **gpuledger.by_day_incremental_config('hour_day', 'hour_start_at')
) }}

{#- Node-level telemetry coverage per clock hour: when a node's telemetry could have seen a
    workload, whether or not it did.

    - nvml: a sampling round of the host covers the node for its interval when every device
      of the round was read (no error) and every compute process's cgroup was read (no
      `unresolved` owner). A workload with no process in a clean round was idle, not unseen.
      Rounds are split at hour boundaries like the device rollup.
    - dcgm: the whole-GPU series of the node (MIG instance rows excluded): covered seconds
      averaged over the GPUs reporting in that hour, and the mean active ratio over them. The
      mean is what a time-sliced replica is modeled with (DCGM cannot tell replicas apart).

    Incremental by UTC days of hours (hour_day), as the device rollup it reads and with the
    same hours rebuilt (gpuledger.core.incremental: REACH, HOURLY_MODELS): an hour's dcgm row
    is the device rollup's rows of that hour, its nvml row the rounds of that hour and of the
    hour before (a round's interval runs at most an hour into the next), so hours rebuilt alone
    equal the same hours of a full build. A daily run no longer reads every hour of the
    history. -#}
with

device_hours as (
    select * from {{ ref('int_device_activity_hourly') }}
    where {{ gpuledger.rebuild_window('hour_start_at') }}
),

nvml_samples as (
    select * from {{ ref('stg_nvml__samples') }}
    where {{ gpuledger.rebuild_window('sampled_at', 3600) }}
),

nvml_processes as (
    select * from {{ ref('stg_nvml__processes') }}
    where {{ gpuledger.rebuild_window('sampled_at', 3600) }}
),

unresolved_rounds as (
    select distinct
        node_name,
        sampled_at
    from nvml_processes
    where owner_kind = 'unresolved'
),

rounds as (
    select
        node_name,
        sampled_at,
        least(max(interval_seconds), 3600) as interval_seconds,
        count(distinct device_uuid) as device_count,
        max(case when has_error then 1 else 0 end) as has_error
    from nvml_samples
    group by node_name, sampled_at
),

clean_rounds as (
    select
        rounds.node_name,
        rounds.device_count,
        rounds.interval_seconds,
        date_trunc('hour', rounds.sampled_at) as hour_start_at,
        3600
        - {{ gpuledger.seconds_between("date_trunc('hour', rounds.sampled_at)", 'rounds.sampled_at') }}
            as seconds_left_in_hour
    from rounds
    left join unresolved_rounds
        on
            rounds.node_name = unresolved_rounds.node_name
            and rounds.sampled_at = unresolved_rounds.sampled_at
    where
        rounds.has_error = 0
        and unresolved_rounds.node_name is null
        and rounds.interval_seconds > 0
),

round_pieces as (
    select
        node_name,
        device_count,
        hour_start_at,
        least(interval_seconds, seconds_left_in_hour) as covered_seconds
    from clean_rounds
    union all
    select
        node_name,
        device_count,
        hour_start_at + interval 1 hour as hour_start_at,
        interval_seconds - seconds_left_in_hour as covered_seconds
    from clean_rounds
    where interval_seconds > seconds_left_in_hour
),

nvml_nodes as (
    select
        'nvml' as activity_source,
        node_name,
        hour_start_at,
        max(device_count) as reporting_device_count,
        {{ gpuledger.exact_sum('covered_seconds') }} as covered_seconds,
        cast(null as double) as mean_active_ratio
    from round_pieces
    group by node_name, hour_start_at
),

dcgm_devices as (
    select
        node_name,
        hour_start_at,
        count(distinct gpu_uuid) as reporting_device_count,
        {{ gpuledger.exact_sum('covered_seconds') }} as covered_device_seconds,
        {{ gpuledger.exact_sum('active_seconds') }} as active_device_seconds
    from device_hours
    where activity_source = 'dcgm' and not is_mig_instance
    group by node_name, hour_start_at
),

dcgm_nodes as (
    select
        'dcgm' as activity_source,
        node_name,
        hour_start_at,
        reporting_device_count,
        covered_device_seconds / reporting_device_count as covered_seconds,
        case
            when covered_device_seconds > 0 then active_device_seconds / covered_device_seconds
        end as mean_active_ratio
    from dcgm_devices
),

unioned as (
    select * from nvml_nodes
    union all
    select * from dcgm_nodes
),

final as (
    select
        {{ surrogate_key(['activity_source', 'node_name', 'hour_start_at']) }}
            as node_telemetry_hour_id,
        activity_source,
        node_name,
        hour_start_at,
        reporting_device_count,
        least(covered_seconds, 3600) as covered_seconds,
        mean_active_ratio,
        cast(hour_start_at as date) as hour_day
    from unioned
    where {{ gpuledger.rebuild_window('hour_start_at') }}
)

select * from final
