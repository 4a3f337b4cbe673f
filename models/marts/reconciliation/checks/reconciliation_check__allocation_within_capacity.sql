{#- Allocation within capacity per period: it fails by the GPU-hours a class held above its
    GPUs in service, over every interval of the class timeline where it did (class 'unknown'
    has no GPUs in service: no_orphan_allocations). -#}
with

excess as (
    select * from {{ ref('int_class_capacity_excess') }}
),

findings as (
    select
        period,
        gpu_class,
        excess_gpu_hours as observed_value,
        excess_summary || ' GPU-equivalents above the GPUs in service' as finding
    from excess
    where measure = 'allocated' and gpu_class != 'unknown'
),

measured as (
    {{ gpuledger.reconciliation_measure(
        'findings', 'every instant within capacity', order_by='gpu_class', delimiter='; '
    ) }}
),

final as (
    {{ gpuledger.reconciliation_check(
        'allocation_within_capacity', 'measured', gpuledger.reconciliation_status('within_tolerance')
    ) }}
)

select * from final
