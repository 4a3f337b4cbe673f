{#- One row per period and reconciliation check: its status
    (pass | fail | not_applicable | info), whether a failure blocks the close, the observed
    figure against its limit, and a detail a reviewer can act on. Each check is its own model,
    checks/reconciliation_check__<name>.sql, registered in dbt_project.yml
    (vars.reconciliation_checks); this is their union. -#}
with

checks as (
    {{ gpuledger.union_reconciliation_checks() }}
),

final as (
    select * from checks
)

select * from final
