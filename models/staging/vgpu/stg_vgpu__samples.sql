{#- One row per vGPU instance per host poll (a poll landed twice counts once). Percent ->
    ratio 0..1. The ratios are the host's per-vGPU readings (NVML vgpu utilization), whose
    denominator is the host's, not the guest's: a guest reading 100% of its share is not this
    row's 1.0, and the two are never added. `vgpu_profile` is the type name without its
    vendor prefix (`NVIDIA A100D-20C` -> `A100D-20C`, `GRID A100-1-10C` -> `A100-1-10C`), the
    key of policy partition weights (sharing_mode vgpu). Rows with no vGPU UUID (an instance
    that vanished mid-poll) stay in raw. -#}
with

samples as (
    select * from {{ source('vgpu', 'vgpu_samples') }}
),

latest as (
    {{ gpuledger.latest_landed(
        'samples', key=['gpu_uuid', 'vgpu_uuid', 'sampled_at'], where='vgpu_uuid is not null'
    ) }}
),

final as (
    select
        {{ surrogate_key(['gpu_uuid', 'vgpu_uuid', 'sampled_at']) }} as vgpu_sample_id,
        host as node_name,
        gpu_uuid,
        gpu_index,
        gpu_name as gpu_model,
        vgpu_instance as vgpu_instance_id,
        vgpu_uuid,
        vm_id,
        vm_id_type,
        vgpu_type_id,
        vgpu_type_name,
        regexp_replace(vgpu_type_name, '^(NVIDIA|GRID) ', '') as vgpu_profile,
        sampled_at,
        interval_seconds,
        next_poll_due_at,
        fb_used_bytes as framebuffer_used_bytes,
        cast(sm_util_percent as double) / 100 as sm_active_ratio,
        cast(mem_util_percent as double) / 100 as memory_active_ratio,
        cast(enc_util_percent as double) / 100 as encoder_active_ratio,
        cast(dec_util_percent as double) / 100 as decoder_active_ratio,
        util_sample_count,
        null_reasons,
        batch_id
    from latest
)

select * from final
