{{ config(materialized='view') }}
{#- One row per period the warehouse knows (months with evidence or policy, and every month
    ever closed): whether it is open or closed now and, when closed, the close that holds it.
    A view over the ledger, so a close or reopen shows at once; the close gate reads it. -#}
with

periods as (
    select * from {{ ref('int_periods') }}
),

closed as (
    select * from {{ ref('int_closed_periods') }}
),

closes as (
    select * from {{ ref('stg_ledger__closes') }}
),

known as (
    select period from periods
    union
    select period from closes
),

final as (
    select
        known.period,
        case when closed.close_id is null then 'open' else 'closed' end as status,
        closes.close_id,
        closes.close_version,
        closes.closed_at,
        closes.approver,
        closes.line_count,
        closes.total_amount,
        closes.lines_sha256,
        closes.input_manifest_hash
    from known
    left join closed
        on known.period = closed.period
    left join closes
        on closed.close_id = closes.close_id
)

select * from final
