with

source as (
    select * from {{ source('landing', 'quarantine_decisions') }}
),

final as (
    select
        decision_id,
        decision,
        batch_id,
        line as line_number,
        reason as decision_reason,
        decided_by,
        decided_at,
        released_batch_id
    from source
)

select * from final
