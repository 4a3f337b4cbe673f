{#- Per period, the allocated GPU-hours (segments) and the tenant charges (charge lines, less
    credits and the central platform lines) with the part of each that went to the suspense
    tenant __unattributed__, and the policy's unattributed_tolerance_pct. A period with no
    segments or charges has zeros. -#}
with

periods as (
    select * from {{ ref('int_periods') }}
),

segments as (
    select * from {{ ref('int_allocation_segments') }}
),

charges as (
    select * from {{ ref('int_charge_lines') }}
),

settings as (
    select * from {{ ref('stg_policy__settings') }}
),

hours as (
    select
        period,
        {{ gpuledger.exact_sum('gpu_hours') }} as total_gpu_hours,
        {{ gpuledger.exact_sum("case when tenant_id = '__unattributed__' then gpu_hours else 0 end") }}
            as unattributed_gpu_hours
    from segments
    group by period
),

amounts as (
    select
        period,
        sum(case
            when charge_component != 'credit' and tenant_id != '__platform__'
                then amount
            else 0
        end) as charged_amount,
        sum(case when tenant_id = '__unattributed__' then amount else 0 end) as unattributed_amount
    from charges
    group by period
),

final as (
    select
        periods.period,
        coalesce(hours.total_gpu_hours, 0) as total_gpu_hours,
        coalesce(hours.unattributed_gpu_hours, 0) as unattributed_gpu_hours,
        coalesce(amounts.charged_amount, 0) as charged_amount,
        coalesce(amounts.unattributed_amount, 0) as unattributed_amount,
        settings.unattributed_tolerance_pct
    from periods
    cross join settings
    left join hours
        on periods.period = hours.period
    left join amounts
        on periods.period = amounts.period
)

select * from final
