{#- NVML device readings, one row per GPU or MIG device per sampling round (a round landed
    twice, live and again from its --output file, counts once). Units converted once here:
    percent -> ratio 0..1, mW -> W, mJ -> J. `energy_joules` is NVML's counter since the
    driver loaded (difference consecutive rows; it restarts at a driver reload). A MIG-mode
    parent GPU row and its MIG rows describe the same silicon: never add them up. A row with
    `has_error` is a GPU (and its MIG devices) that could not be read that round: telemetry
    unknown, not idle. -#}
with

samples as (
    select * from {{ source('nvml', 'nvml_samples') }}
),

latest as (
    {{ gpuledger.latest_landed(
        'samples', key=['device_uuid', 'sampled_at'], where='device_uuid is not null'
    ) }}
),

final as (
    select
        {{ surrogate_key(['device_uuid', 'sampled_at']) }} as sample_id,
        host as node_name,
        device_uuid,
        gpu_uuid,
        device_kind,
        device_kind = 'mig' as is_mig,
        gpu_index,
        gpu_instance_id,
        compute_instance_id,
        sampled_at,
        interval_seconds,
        cast(utilization_gpu_percent as double) / 100 as gpu_active_ratio,
        cast(utilization_memory_percent as double) / 100 as memory_active_ratio,
        memory_used_bytes,
        memory_total_bytes,
        cast(power_mw as double) / 1000 as power_watts,
        cast(energy_mj as double) / 1000 as energy_joules,
        process_count,
        null_reasons,
        error as sample_error,
        error is not null as has_error,
        batch_id
    from latest
)

select * from final
