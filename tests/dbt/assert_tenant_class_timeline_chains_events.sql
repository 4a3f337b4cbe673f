{#- int_tenant_class_timeline has one row per tenant, GPU class and event instant, and each
    row's interval runs to the next row of its tenant and class (only the last is open):
    returns each key with more than one row, and each row that breaks the chain. -#}
with

timeline as (
    select * from {{ ref('int_tenant_class_timeline') }}
),

duplicated as (
    select
        tenant_id,
        gpu_class,
        interval_start_at,
        'duplicate key' as problem
    from timeline
    group by tenant_id, gpu_class, interval_start_at
    having count(*) > 1
),

ordered as (
    select
        tenant_id,
        gpu_class,
        interval_start_at,
        interval_end_at,
        lead(interval_start_at) over (
            partition by tenant_id, gpu_class order by interval_start_at
        ) as next_interval_start_at
    from timeline
),

broken as (
    select
        tenant_id,
        gpu_class,
        interval_start_at,
        'does not end where the next interval starts' as problem
    from ordered
    where
        interval_end_at <= interval_start_at
        or interval_end_at != next_interval_start_at
        or (interval_end_at is null) != (next_interval_start_at is null)
),

final as (
    select * from duplicated
    union all
    select * from broken
)

select * from final
