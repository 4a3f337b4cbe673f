{#- The MIG instances NVML last reported on a GPU fit it: their compute slices add up to at
    most the GPU's (7), their memory slices to at most its 8, no profile has more instances
    than one GPU can hold, and a catalogued model reports only its own profiles. A GPU's
    current layout is the instances seen at its latest inventory round (a GPU repartitioned
    during the month keeps its earlier instances' rows, with earlier last_observed_at).
    Compute instances of one GPU instance (`1c.3g.40gb`) are one instance. Returns the
    offending GPUs. -#}
with

devices as (
    select * from {{ ref('stg_nvml__devices') }}
),

profiles as (
    select * from {{ ref('mig_profiles') }}
),

known_models as (
    select distinct gpu_model from profiles
),

latest_round as (
    select
        gpu_uuid,
        max(last_observed_at) as last_observed_at
    from devices
    where is_mig
    group by gpu_uuid
),

instances as (
    select distinct
        devices.gpu_uuid,
        devices.gpu_model,
        devices.gpu_instance_id,
        devices.gpu_instance_profile
    from devices
    inner join latest_round
        on
            devices.gpu_uuid = latest_round.gpu_uuid
            and devices.last_observed_at = latest_round.last_observed_at
    where devices.is_mig
),

catalogued as (
    select
        instances.gpu_uuid,
        instances.gpu_model,
        instances.gpu_instance_profile,
        profiles.profile,
        profiles.compute_slices,
        profiles.memory_slices,
        profiles.gpu_compute_slices,
        profiles.gpu_memory_slices,
        profiles.max_instances
    from instances
    inner join known_models
        on instances.gpu_model = known_models.gpu_model
    left join profiles
        on
            instances.gpu_model = profiles.gpu_model
            and instances.gpu_instance_profile = profiles.profile
),

per_profile as (
    select
        gpu_uuid,
        gpu_instance_profile,
        count(*) as instance_count,
        max(max_instances) as max_instances
    from catalogued
    group by gpu_uuid, gpu_instance_profile
),

per_gpu as (
    select
        gpu_uuid,
        gpu_model,
        sum(compute_slices) as compute_slices,
        sum(memory_slices) as memory_slices,
        max(gpu_compute_slices) as gpu_compute_slices,
        max(gpu_memory_slices) as gpu_memory_slices,
        count(*) - count(profile) as unknown_profiles
    from catalogued
    group by gpu_uuid, gpu_model
),

final as (
    select
        per_gpu.gpu_uuid,
        per_gpu.gpu_model,
        per_gpu.compute_slices,
        per_gpu.memory_slices,
        per_gpu.unknown_profiles,
        per_profile.gpu_instance_profile,
        per_profile.instance_count
    from per_gpu
    left join per_profile
        on
            per_gpu.gpu_uuid = per_profile.gpu_uuid
            and per_profile.instance_count > per_profile.max_instances
    where
        per_gpu.compute_slices > per_gpu.gpu_compute_slices
        or per_gpu.memory_slices > per_gpu.gpu_memory_slices
        or per_gpu.unknown_profiles > 0
        or per_profile.gpu_uuid is not null
)

select * from final
