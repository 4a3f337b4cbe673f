{{ config(materialized='view') }}
{#- One row per period that is closed now: its latest close, unless a reopen followed that
    close. A view: closes and reopens are written outside dbt, so this always reads them live. -#}
with

closes as (
    select * from {{ ref('stg_ledger__closes') }}
),

reopens as (
    select * from {{ ref('stg_ledger__reopens') }}
),

ranked as (
    select
        period,
        close_id,
        close_version,
        closed_at,
        row_number() over (partition by period order by close_version desc) as close_rank
    from closes
),

final as (
    select
        ranked.period,
        ranked.close_id,
        ranked.close_version,
        ranked.closed_at
    from ranked
    left join reopens
        on ranked.close_id = reopens.close_id
    where ranked.close_rank = 1 and reopens.close_id is null
)

select * from final
