{#- int_capacity_by_class has one row per period and GPU class: returns each key with more
    than one row. -#}
with

capacity as (
    select * from {{ ref('int_capacity_by_class') }}
),

final as (
    select
        period,
        gpu_class,
        count(*) as row_count
    from capacity
    group by period, gpu_class
    having count(*) > 1
)

select * from final
