with

source as (
    select * from {{ source('landing', 'batches') }}
),

final as (
    select
        batch_id,
        source as source_name,
        file as file_path,
        content_sha256,
        extracted_at,
        landed_at,
        records_read,
        records_landed,
        records_quarantined
    from source
)

select * from final
