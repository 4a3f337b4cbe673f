{#- Every Slurm job or heterogeneous-job component (with GPUs or not) whose recorded end
    precedes its start. -#}
with

jobs as (
    select * from {{ ref('stg_slurm__jobs') }}
),

final as (
    select
        component_id,
        workload_id,
        started_at,
        ended_at
    from jobs
    where ended_at < started_at
)

select * from final
