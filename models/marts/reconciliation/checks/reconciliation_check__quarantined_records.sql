{#- Quarantined records: how many landed records are in quarantine, all batches, reported on
    every period (informational, never blocking). -#}
with

periods as (
    select * from {{ ref('int_periods') }}
),

quarantine as (
    select * from {{ ref('int_quarantined_records') }}
),

measured as (
    select
        periods.period,
        cast(count(quarantine.batch_id) as double) as observed_value,
        cast(null as double) as limit_value,
        'staging.stg_landing__quarantine holds each record with file, line, field and reason'
            as detail
    from periods
    left join quarantine
        on true
    group by periods.period
),

final as (
    {{ gpuledger.reconciliation_check(
        'quarantined_records', 'measured', "'info'"
    ) }}
)

select * from final
