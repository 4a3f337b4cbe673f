{#- One row per record the landing held back: where it came from (batch, source, file, line,
    field), why, and what was decided (open | acknowledged | released, with the reason, who
    and when; a release names the batch the record landed in), with its batch's evidence
    span. A close of a period its batch touches records the acknowledged ones. -#}
with

quarantine as (
    select * from {{ ref('int_quarantined_records') }}
),

final as (
    select
        batch_id,
        source_name,
        file_path,
        line_number,
        field_name,
        reason,
        quarantined_at,
        quarantine_status,
        decision_reason,
        decided_by,
        decided_at,
        released_batch_id,
        coverage_start_at,
        coverage_end_at
    from quarantine
)

select * from final
