{#- Every record a landing batch quarantined (all batches), with the file, line and field it
    came from and the reason it was rejected. -#}
with

quarantine as (
    select * from {{ ref('stg_landing__quarantine') }}
),

final as (
    select
        batch_id,
        source_name,
        file_path,
        line_number,
        field_name,
        reason,
        quarantined_at
    from quarantine
)

select * from final
