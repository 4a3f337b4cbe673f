{{ config(
    **gpuledger.by_day_incremental_config('sample_day')
) }}

{#- The days each physical GPU was reported by DCGM, per host: the first and last sample time
    of the day (every staging row of the GPU counts, MIG instance and parent rows and rows
    without activity too). int_reported_devices reads a fleet's DCGM sightings here, one row
    per GPU and day, where it read every staging row (188.7M in a 4,096-GPU month, in every
    build); a day depends only on its own staging rows.

    Incremental by whole UTC days (sample_day), the days staging rebuilds, and always in
    pieces of whole days (gpuledger.core.incremental.WHOLE_DAYS: a day in pieces of hours
    would give a GPU two rows for one day). -#}
with

dcgm as (
    select * from {{ ref('stg_prometheus__gpu_activity') }}
    where {{ gpuledger.rebuild_window('sampled_at') }}
),

final as (
    select
        gpu_uuid,
        hostname as node_name,
        sample_day,
        min(sampled_at) as first_sampled_at,
        max(sampled_at) as last_sampled_at,
        count(*) as row_count
    from dcgm
    where gpu_uuid is not null
    group by gpu_uuid, hostname, sample_day
)

select * from final
