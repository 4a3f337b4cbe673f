{#- Every physical GPU some telemetry source reported, with where and when: the NVML
    sampler's inventory, DCGM series through Prometheus (their days, int_dcgm_device_days)
    and the vGPU host sampler. Keyed on the physical GPU UUID (a MIG instance reports its
    parent). -#}
with

nvml as (
    select * from {{ ref('stg_nvml__devices') }}
),

dcgm as (
    select * from {{ ref('int_dcgm_device_days') }}
),

vgpu as (
    select * from {{ ref('stg_vgpu__samples') }}
),

sightings as (
    select
        gpu_uuid,
        node_name,
        'nvml' as reported_by,
        first_observed_at as first_reported_at,
        last_observed_at as last_reported_at
    from nvml
    where gpu_uuid is not null
    union all
    select
        gpu_uuid,
        node_name,
        'dcgm' as reported_by,
        min(first_sampled_at) as first_reported_at,
        max(last_sampled_at) as last_reported_at
    from dcgm
    group by gpu_uuid, node_name
    union all
    select
        gpu_uuid,
        node_name,
        'vgpu_host' as reported_by,
        min(sampled_at) as first_reported_at,
        max(sampled_at) as last_reported_at
    from vgpu
    where gpu_uuid is not null
    group by gpu_uuid, node_name
),

final as (
    select
        gpu_uuid,
        min(node_name) as node_name,
        count(distinct node_name) as node_name_count,
        -- noqa: disable=LT02
        {% call gpuledger.string_agg("','", order_by='reported_by', distinct=true) -%}
            reported_by
        {%- endcall %} as reported_by,
        -- noqa: enable=LT02
        min(first_reported_at) as first_reported_at,
        max(last_reported_at) as last_reported_at
    from sightings
    group by gpu_uuid
)

select * from final
