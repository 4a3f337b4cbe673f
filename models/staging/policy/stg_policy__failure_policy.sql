with

source as (
    select * from {{ source('policy', 'failure_policy') }}
),

final as (
    select
        failure_class,
        payer,
        is_avoidable_rework = 'true' as is_avoidable_rework
    from source
)

select * from final
