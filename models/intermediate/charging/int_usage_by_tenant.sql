{#- Allocated, guaranteed and borrowed GPU-hours per period, tenant and GPU class. -#}
with

segments as (
    select * from {{ ref('int_allocation_segments') }}
),

final as (
    select
        period,
        tenant_id,
        gpu_class,
        {{ gpuledger.exact_sum('gpu_hours') }} as allocated_gpu_hours,
        {{ gpuledger.exact_sum('guaranteed_gpu_hours') }} as guaranteed_gpu_hours,
        {{ gpuledger.exact_sum('borrowed_gpu_hours') }} as borrowed_gpu_hours
    from segments
    group by period, tenant_id, gpu_class
)

select * from final
