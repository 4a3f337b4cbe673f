{#- Ownership evidence from Kubernetes namespace labels observed over time: for every
    namespace seen, a gap-free timeline of the tenant (and project) its labels named. A label
    state holds from the instant it was first observed (the first List or watch event that
    showed it) until superseded, deleted or gone, and never before: anyone who can label a
    namespace could otherwise move its past usage, so a label first observed after the
    namespace's creation owns nothing before that observation (the gap is ownerless: the
    policy or suspense). A label value that is not a policy tenant is no evidence (null), so
    usage never goes to a guessed tenant. -#}
with

labels as (
    select * from {{ ref('stg_kubernetes__namespace_labels') }}
),

tenants as (
    select * from {{ ref('stg_policy__tenants') }}
),

observed_raw as (
    select
        'k8s_namespace' as scope_type,
        labels.namespace_name as scope_key,
        tenants.tenant_id,
        case when tenants.tenant_id is not null then labels.project_label_value end as project_id,
        labels.observed_at as valid_from_at,
        coalesce(labels.superseded_at, labels.deleted_at, labels.gone_by_at) as valid_to_at,
        labels.label_state_number
    from labels
    left join tenants
        on labels.tenant_label_value = tenants.tenant_id
),

observed as (
    {#- one state per namespace name and start; empty or inverted intervals are no evidence -#}
    select
        scope_type,
        scope_key,
        tenant_id,
        project_id,
        valid_from_at,
        valid_to_at
    from (
        select
            *,
            row_number() over (
                partition by scope_type, scope_key, valid_from_at
                order by label_state_number desc
            ) as start_rank
        from observed_raw
        where {{ gpuledger.open_end('valid_to_at') }} > valid_from_at
    ) as ranked
    where start_rank = 1
),

ordered as (
    select
        *,
        lead(valid_from_at) over (
            partition by scope_type, scope_key order by valid_from_at
        ) as next_valid_from_at,
        row_number() over (
            partition by scope_type, scope_key order by valid_from_at
        ) as interval_number
    from observed
),

evidence as (
    select
        scope_type,
        scope_key,
        tenant_id,
        project_id,
        valid_from_at,
        least(
            {{ gpuledger.open_end('valid_to_at') }}, {{ gpuledger.open_end('next_valid_from_at') }}
        ) as valid_to_at
    from ordered
),

gap_before_first as (
    select
        scope_type,
        scope_key,
        cast(null as {{ dbt.type_string() }}) as tenant_id,
        cast(null as {{ dbt.type_string() }}) as project_id,
        cast('{{ var("open_interval_start") }}' as timestamp) as valid_from_at,
        valid_from_at as valid_to_at
    from ordered
    where interval_number = 1
),

gap_after as (
    select
        scope_type,
        scope_key,
        cast(null as {{ dbt.type_string() }}) as tenant_id,
        cast(null as {{ dbt.type_string() }}) as project_id,
        {{ gpuledger.open_end('valid_to_at') }} as valid_from_at,
        {{ gpuledger.open_end('next_valid_from_at') }} as valid_to_at
    from ordered
    where {{ gpuledger.open_end('valid_to_at') }} < {{ gpuledger.open_end('next_valid_from_at') }}
),

final as (
    select * from evidence
    union all
    select * from gap_before_first
    union all
    select * from gap_after
)

select * from final
