{#- int_reservation_weeks has one row per tenant, GPU class and week: returns each key with
    more than one row. -#}
with

reservation_weeks as (
    select * from {{ ref('int_reservation_weeks') }}
),

final as (
    select
        tenant_id,
        gpu_class,
        week_start_at,
        count(*) as row_count
    from reservation_weeks
    group by tenant_id, gpu_class, week_start_at
    having count(*) > 1
)

select * from final
