{#- Label ownership changes: every move of a namespace from one tenant to another by its
    labels, in the period it was observed, listed for a reviewer (scope, from tenant, to
    tenant, observed at). Informational, never blocking: the move owns usage from its
    observation on only, so the bill is right for what was observed; a move the policy did
    not intend is corrected in ownership.csv, which wins over labels. -#}
with

moves as (
    select * from {{ ref('int_label_ownership_moves') }}
),

findings as (
    select
        {{ gpuledger.period_of('observed_at') }} as period,
        observed_at,
        1 as observed_value,
        scope_type || ':' || scope_key || ' from ' || from_tenant_id || ' to ' || to_tenant_id
        || ' observed at ' || cast(observed_at as {{ dbt.type_string() }})
        || case when is_policy_owned then ' (policy-owned then: charges unchanged)' else '' end
            as finding
    from moves
),

measured as (
    {{ gpuledger.reconciliation_measure(
        'findings', 'no label moved a namespace between tenants', order_by='observed_at', limit_value=none
    ) }}
),

final as (
    {{ gpuledger.reconciliation_check('label_ownership_changes', 'measured', "'info'") }}
)

select * from final
