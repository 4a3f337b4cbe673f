with

source as (
    select * from {{ source('ledger', 'reopens') }}
),

final as (
    select
        reopen_id,
        period,
        close_id,
        reopened_at,
        reason,
        requested_by
    from source
)

select * from final
