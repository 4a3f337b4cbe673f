{#- A run of n > 1 weeks below the threshold continues one of n - 1 weeks ending the week
    before; a week at or above the threshold has no run; a candidate has a run of at least
    the required weeks. Returns the rows that break this. -#}
with

signal as (
    select * from {{ ref('fact_reclamation_signal') }}
),

final as (
    select
        this_week.tenant_id,
        this_week.gpu_class,
        this_week.iso_week,
        this_week.below_threshold_weeks,
        previous_week.below_threshold_weeks as previous_below_threshold_weeks
    from signal as this_week
    left join signal as previous_week
        on
            this_week.tenant_id = previous_week.tenant_id
            and this_week.gpu_class = previous_week.gpu_class
            and this_week.week_start_at = previous_week.week_end_at
    where
        (this_week.is_below_threshold and this_week.below_threshold_weeks < 1)
        or (not this_week.is_below_threshold and this_week.below_threshold_weeks != 0)
        or (
            this_week.below_threshold_weeks > 1
            and coalesce(previous_week.below_threshold_weeks, 0) != this_week.below_threshold_weeks - 1
        )
        or (
            this_week.is_reclamation_candidate
            != (this_week.below_threshold_weeks >= this_week.required_weeks)
        )
)

select * from final
