{#- The reclamation signal: per tenant, GPU class and complete ISO week, the
    week's occupancy (allocated / reserved GPU-hours), whether it stayed below the threshold
    share, the length of the run of consecutive weeks below it ending this week, and a flag
    once that run reaches the required number of weeks. Settings `reclamation_threshold_share`
    (default 0.6) and `reclamation_weeks` (default 4) are read from stg_policy__settings when
    it has those columns, else from the vars of the same names. A week missing from the
    series (not reserved, or not complete) breaks the run. -#}
with

reservation_weeks as (
    select * from {{ ref('int_reservation_weeks') }}
),

settings as (
    select * from {{ ref('stg_policy__settings') }}
),

thresholds as (
    select
        cast({{ gpuledger.policy_setting('reclamation_threshold_share', 0.6) }} as decimal(18, 6))
            as threshold_share,
        cast({{ gpuledger.policy_setting('reclamation_weeks', 4) }} as integer) as required_weeks
    from settings
),

occupancy as (
    select
        reservation_weeks.*,
        thresholds.threshold_share,
        thresholds.required_weeks,
        cast(round(
            reservation_weeks.allocated_gpu_hours / reservation_weeks.reserved_gpu_hours, 6
        ) as decimal(18, 6)) as occupancy_ratio,
        reservation_weeks.allocated_gpu_hours
        < thresholds.threshold_share * reservation_weeks.reserved_gpu_hours as is_below_threshold,
        {#- weeks since Monday 1970-01-05: consecutive ISO weeks differ by 1 -#}
        cast({{ gpuledger.seconds_between(
            "cast('1970-01-05 00:00:00' as timestamp)", 'reservation_weeks.week_start_at'
        ) }} / 604800 as bigint) as week_number
    from reservation_weeks
    cross join thresholds
),

runs as (
    {#- gaps and islands: consecutive weeks below the threshold share one run key -#}
    select
        *,
        week_number - row_number() over (
            partition by tenant_id, gpu_class, is_below_threshold order by week_number
        ) as run_key
    from occupancy
),

streaks as (
    select
        *,
        case
            when is_below_threshold
                then row_number() over (
                    partition by tenant_id, gpu_class, is_below_threshold, run_key
                    order by week_number
                )
            else 0
        end as below_threshold_weeks
    from runs
),

final as (
    select
        {{ surrogate_key(['tenant_id', 'gpu_class', 'iso_week']) }} as reclamation_signal_id,
        tenant_id,
        gpu_class,
        iso_week,
        week_start_at,
        week_end_at,
        service_classes,
        reserved_gpu_hours,
        allocated_gpu_hours,
        occupancy_ratio,
        threshold_share,
        required_weeks,
        is_below_threshold,
        cast(below_threshold_weeks as integer) as below_threshold_weeks,
        below_threshold_weeks >= required_weeks as is_reclamation_candidate
    from streaks
)

select * from final
