{#- MetricFlow's time spine: one row per period the warehouse knows, at its first day. The
    ledgers are monthly, so a month is the finest grain any metric has. -#}
with

periods as (
    select * from {{ ref('dim_period') }}
),

final as (
    select cast(period || '-01' as date) as period_start_date
    from periods
)

select * from final
