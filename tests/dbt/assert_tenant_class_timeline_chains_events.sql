{#- int_tenant_class_timeline has one row per tenant, GPU class and event instant, and each
    row's interval runs to the next row of its tenant and class, or to a period boundary
    where the tenant and class then hold nothing until their next row (they have no rows in
    a period where nothing of theirs starts, ends or runs; only the last row may be open):
    returns each key with more than one row, and each row that breaks the chain. -#}
with

timeline as (
    select * from {{ ref('int_tenant_class_timeline') }}
),

periods as (
    select * from {{ ref('int_periods') }}
),

boundaries as (
    select period_start_at as boundary_at from periods
    union
    select period_end_at as boundary_at from periods
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
        ordered.tenant_id,
        ordered.gpu_class,
        ordered.interval_start_at,
        'does not end where the next interval starts' as problem
    from ordered
    left join boundaries
        on ordered.interval_end_at = boundaries.boundary_at
    where
        ordered.interval_end_at <= ordered.interval_start_at
        or (ordered.interval_end_at is null and ordered.next_interval_start_at is not null)
        or (
            ordered.interval_end_at is not null
            and (
                ordered.next_interval_start_at is null
                or ordered.interval_end_at != ordered.next_interval_start_at
            )
            and (
                boundaries.boundary_at is null
                or ordered.interval_end_at > ordered.next_interval_start_at
            )
        )
),

final as (
    select * from duplicated
    union all
    select * from broken
)

select * from final
