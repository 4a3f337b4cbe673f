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
        extracted_at_basis,
        landed_at,
        records_read,
        records_landed,
        records_quarantined,
        coverage_start_at,
        coverage_end_at,
        coverage_basis
    from source
)

select * from final
