{#- Allocation = guaranteed + borrowed, with both parts non-negative and borrowed no more
    than the allocation: for every segment and for every period, tenant and GPU class of
    int_usage_by_tenant. Returns the offending rows. -#}
with

segments as (
    select * from {{ ref('int_allocation_segments') }}
),

usage as (
    select * from {{ ref('int_usage_by_tenant') }}
),

ledger as (
    select
        'segment' as check_level,
        segment_id as row_key,
        gpu_hours as allocated_gpu_hours,
        guaranteed_gpu_hours,
        borrowed_gpu_hours
    from segments
    union all
    select
        'period_tenant_class' as check_level,
        period || ' ' || tenant_id || ' ' || gpu_class as row_key,
        allocated_gpu_hours,
        guaranteed_gpu_hours,
        borrowed_gpu_hours
    from usage
),

final as (
    select *
    from ledger
    where
        guaranteed_gpu_hours is null
        or borrowed_gpu_hours is null
        or abs(guaranteed_gpu_hours + borrowed_gpu_hours - allocated_gpu_hours) > 0.000001
        or guaranteed_gpu_hours < -0.000001
        or borrowed_gpu_hours < -0.000001
        or borrowed_gpu_hours > allocated_gpu_hours + 0.000001
)

select * from final
