with

source as (
    select * from {{ source('ledger', 'closes') }}
),

final as (
    select
        close_id,
        period,
        close_version,
        closed_at,
        approver,
        policy_hash,
        rate_card_version,
        schema_version,
        input_manifest_hash,
        lines_sha256,
        line_count,
        total_amount
    from source
)

select * from final
