{#- Every record a landing batch quarantined, with the file, line and field it came from, the
    reason it was rejected, the latest decision about it (open | acknowledged | released) and
    the evidence span of its batch (the periods it can hold back). -#}
with

quarantine as (
    select * from {{ ref('stg_landing__quarantine') }}
),

decisions as (
    select * from {{ ref('stg_landing__quarantine_decisions') }}
),

batches as (
    select * from {{ ref('stg_landing__batches') }}
),

latest_decisions as (
    select
        *,
        row_number() over (
            partition by batch_id, line_number order by decided_at desc, decision_id desc
        ) as decision_rank
    from decisions
),

final as (
    select
        quarantine.batch_id,
        quarantine.source_name,
        quarantine.file_path,
        quarantine.line_number,
        quarantine.field_name,
        quarantine.reason,
        quarantine.quarantined_at,
        case
            when latest_decisions.decision = 'acknowledge' then 'acknowledged'
            when latest_decisions.decision = 'release' then 'released'
            else 'open'
        end as quarantine_status,
        latest_decisions.decision_reason,
        latest_decisions.decided_by,
        latest_decisions.decided_at,
        latest_decisions.released_batch_id,
        batches.coverage_start_at,
        batches.coverage_end_at
    from quarantine
    left join latest_decisions
        on
            quarantine.batch_id = latest_decisions.batch_id
            and quarantine.line_number = latest_decisions.line_number
            and latest_decisions.decision_rank = 1
    left join batches
        on quarantine.batch_id = batches.batch_id
)

select * from final
