{#- Unattributed cost per period: the amount charged to the suspense tenant as a percent of
    the tenant charges (credits and central platform lines left out), within the policy's
    unattributed_tolerance_pct. -#}
with

unattributed as (
    select * from {{ ref('int_unattributed_usage') }}
),

measured as (
    select
        period,
        case
            when charged_amount > 0
                then 100 * cast(unattributed_amount as double) / cast(charged_amount as double)
            else 0
        end as observed_value,
        cast(unattributed_tolerance_pct as double) as limit_value,
        cast(unattributed_amount as {{ dbt.type_string() }})
        || ' of ' || cast(charged_amount as {{ dbt.type_string() }})
        || ' charged to the suspense line' as detail
    from unattributed
),

final as (
    {{ gpuledger.reconciliation_check(
        'unattributed_cost', 'measured', gpuledger.reconciliation_status('within_limit')
    ) }}
)

select * from final
