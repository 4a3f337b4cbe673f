{#- One row: the deployment's settings, typed. Absent optional keys take their defaults. -#}
with

source as (
    select * from {{ source('policy', 'settings') }}
),

final as (
    select
        max(case when key = 'charging_model' then value end) as charging_model,
        cast(coalesce(
            max(case when key = 'unattributed_tolerance_pct' then value end), '2'
        ) as decimal(18, 6)) as unattributed_tolerance_pct,
        cast(coalesce(
            max(case when key = 'idle_active_threshold' then value end), '0.05'
        ) as decimal(18, 6)) as idle_active_threshold,
        coalesce(max(case when key = 'overhead_driver' then value end), 'allocated_hours')
            as overhead_driver,
        coalesce(max(case when key = 'currency' then value end), 'USD') as currency,
        cast(max(case when key = 'reclamation_threshold_share' then value end) as decimal(18, 6))
            as reclamation_threshold_share,
        cast(max(case when key = 'reclamation_weeks' then value end) as integer) as reclamation_weeks,
        cast(max(case when key = 'productive_work_tolerance_pct' then value end) as decimal(18, 6))
            as productive_work_tolerance_pct,
        coalesce(max(case when key = 'timeslice_attribution' then value end), 'process')
            as timeslice_attribution,
        cast(coalesce(
            max(case when key = 'quarantine_tolerance_pct' then value end), '0'
        ) as decimal(18, 6)) as quarantine_tolerance_pct,
        cast(coalesce(
            max(case when key = 'settle_lag_hours' then value end), '24'
        ) as decimal(18, 6)) as settle_lag_hours,
        cast(coalesce(
            max(case when key = 'coverage_gap_tolerance_minutes' then value end), '60'
        ) as decimal(18, 6)) as coverage_gap_tolerance_minutes,
        coalesce(max(case when key = 'personal_data' then value end), 'hash') as personal_data
    from source
)

select * from final
