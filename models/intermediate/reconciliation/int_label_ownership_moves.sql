{#- Every move of a Kubernetes namespace (by name) from one tenant to another by its labels:
    a label naming tenant B first observed where the namespace's last label naming a tenant
    named A (labels naming no policy tenant in between do not count). The move holds from
    its observation on, never before (int_namespace_label_ownership); is_policy_owned says
    the policy owned the namespace then, so the policy, not the label, decided the charges. -#}
with

labels as (
    select * from {{ ref('int_namespace_label_ownership') }}
),

timeline as (
    select * from {{ ref('int_ownership_timeline') }}
),

named as (
    select
        scope_type,
        scope_key,
        tenant_id,
        valid_from_at,
        lag(tenant_id) over (
            partition by scope_type, scope_key order by valid_from_at
        ) as previous_tenant_id
    from labels
    where tenant_id is not null
),

moves as (
    select
        scope_type,
        scope_key,
        previous_tenant_id as from_tenant_id,
        tenant_id as to_tenant_id,
        valid_from_at as observed_at
    from named
    where previous_tenant_id is not null and previous_tenant_id != tenant_id
),

final as (
    select
        moves.scope_type,
        moves.scope_key,
        moves.from_tenant_id,
        moves.to_tenant_id,
        moves.observed_at,
        coalesce(timeline.ownership_source = 'policy', false) as is_policy_owned
    from moves
    left join timeline
        on
            moves.scope_type = timeline.scope_type
            and moves.scope_key = timeline.scope_key
            and moves.observed_at >= timeline.valid_from_at
            and moves.observed_at < timeline.valid_to_at
)

select * from final
