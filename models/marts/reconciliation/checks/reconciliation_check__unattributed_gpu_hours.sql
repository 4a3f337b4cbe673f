{#- Unattributed GPU-hours per period: the GPU-hours of the suspense tenant as a percent of
    all allocated GPU-hours, within the policy's unattributed_tolerance_pct. -#}
with

unattributed as (
    select * from {{ ref('int_unattributed_usage') }}
),

measured as (
    select
        period,
        case
            when total_gpu_hours > 0
                then 100 * cast(unattributed_gpu_hours as double) / cast(total_gpu_hours as double)
            else 0
        end as observed_value,
        cast(unattributed_tolerance_pct as double) as limit_value,
        cast(round(unattributed_gpu_hours, 3) as {{ dbt.type_string() }})
        || ' of ' || cast(round(total_gpu_hours, 3) as {{ dbt.type_string() }})
        || ' GPU-hours have no owner' as detail
    from unattributed
),

final as (
    {{ gpuledger.reconciliation_check(
        'unattributed_gpu_hours', 'measured', gpuledger.reconciliation_status('within_limit')
    ) }}
)

select * from final
