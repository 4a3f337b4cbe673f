with

source as (
    select * from {{ source('ledger', 'close_batches') }}
),

final as (
    select
        close_id,
        batch_id,
        content_sha256
    from source
)

select * from final
