with

source as (
    select * from {{ source('ledger', 'batch_validations') }}
),

final as (
    select
        batch_id,
        source as source_name,
        outcome as validation_outcome,
        validated_at,
        first_evidence_at,
        last_evidence_at,
        failed_expectations,
        results_path
    from source
)

select * from final
