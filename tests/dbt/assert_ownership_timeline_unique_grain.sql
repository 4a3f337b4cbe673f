{#- int_ownership_timeline has one row per scope and interval start: returns each (scope_type,
    scope_key, valid_from_at) with more than one row (two policy intervals of one scope that
    start at the same instant). -#}
with

timeline as (
    select * from {{ ref('int_ownership_timeline') }}
),

final as (
    select
        scope_type,
        scope_key,
        valid_from_at,
        count(*) as row_count
    from timeline
    where valid_to_at > valid_from_at
    group by scope_type, scope_key, valid_from_at
    having count(*) > 1
)

select * from final
