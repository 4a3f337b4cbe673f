with

source as (
    select * from {{ source('landing', 'quarantine') }}
),

final as (
    select
        batch_id,
        source as source_name,
        file as file_path,
        line as line_number,
        field as field_name,
        reason,
        raw as raw_record,
        quarantined_at
    from source
)

select * from final
