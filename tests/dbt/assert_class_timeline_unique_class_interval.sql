{#- int_class_timeline has one row per GPU class and elementary interval, and the intervals
    of a class neither overlap nor are empty: returns each key with more than one row, and
    each interval that is empty or overlaps the next one of its class. -#}
with

timeline as (
    select * from {{ ref('int_class_timeline') }}
),

duplicated as (
    select
        gpu_class,
        interval_start_at,
        'duplicate key' as problem
    from timeline
    group by gpu_class, interval_start_at
    having count(*) > 1
),

ordered as (
    select
        gpu_class,
        interval_start_at,
        interval_end_at,
        lead(interval_start_at) over (
            partition by gpu_class order by interval_start_at
        ) as next_interval_start_at
    from timeline
),

misordered as (
    select
        gpu_class,
        interval_start_at,
        case
            when interval_end_at <= interval_start_at then 'empty interval'
            else 'overlaps the next interval'
        end as problem
    from ordered
    where
        interval_end_at <= interval_start_at
        or interval_end_at > next_interval_start_at
),

final as (
    select * from duplicated
    union all
    select * from misordered
)

select * from final
