{#- Partition weight coverage per period: no GPU-hours of a shared (MIG, vGPU, time-slice)
    profile without an approved capacity fraction in partition_weights.csv. -#}
with

segments as (
    select * from {{ ref('int_allocation_segments') }}
),

findings as (
    select
        period,
        gpu_hours as observed_value,
        gpu_model || ' ' || profile as finding
    from segments
    where is_missing_weight
),

measured as (
    {{ gpuledger.reconciliation_measure(
        'findings', 'every shared profile has an approved weight', order_by='finding', distinct=true
    ) }}
),

final as (
    {{ gpuledger.reconciliation_check(
        'partition_weight_coverage', 'measured', gpuledger.reconciliation_status('within_tolerance')
    ) }}
)

select * from final
