{#- Who owned each scope at each instant, gap-free: the policy's timeline (ownership.csv)
    merged with the evidence of Kubernetes namespace labels. The policy wins wherever it
    names an owner; label evidence only fills the policy's gaps; where neither names one the
    tenant is null (usage goes to suspense). `ownership_source` says which applied. -#}
with

policy as (
    select * from {{ ref('int_policy_ownership_timeline') }}
),

namespace_labels as (
    select * from {{ ref('int_namespace_label_ownership') }}
),

cuts as (
    select
        scope_type,
        scope_key,
        valid_from_at as cut_at
    from policy
    union
    select
        scope_type,
        scope_key,
        valid_from_at as cut_at
    from namespace_labels
),

pieces as (
    select
        scope_type,
        scope_key,
        cut_at as valid_from_at,
        coalesce(
            lead(cut_at) over (partition by scope_type, scope_key order by cut_at),
            cast('{{ var("open_interval_end") }}' as timestamp)
        ) as valid_to_at
    from cuts
),

final as (
    select
        pieces.scope_type,
        pieces.scope_key,
        coalesce(policy.tenant_id, namespace_labels.tenant_id) as tenant_id,
        case
            when policy.tenant_id is not null then policy.project_id
            else namespace_labels.project_id
        end as project_id,
        pieces.valid_from_at,
        pieces.valid_to_at,
        case
            when policy.tenant_id is not null then 'policy'
            when namespace_labels.tenant_id is not null then 'namespace_label'
        end as ownership_source
    from pieces
    left join policy
        on
            pieces.scope_type = policy.scope_type
            and pieces.scope_key = policy.scope_key
            and pieces.valid_from_at >= policy.valid_from_at
            and pieces.valid_from_at < policy.valid_to_at
    left join namespace_labels
        on
            pieces.scope_type = namespace_labels.scope_type
            and pieces.scope_key = namespace_labels.scope_key
            and pieces.valid_from_at >= namespace_labels.valid_from_at
            and pieces.valid_from_at < namespace_labels.valid_to_at
    where pieces.valid_from_at < pieces.valid_to_at
)

select * from final
