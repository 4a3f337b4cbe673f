{#- For every scope the policy names (ownership.csv), a gap-free timeline of who owned it: the policy
    intervals, plus ownerless intervals before the first, between any two and after the last
    (tenant_id null there). A workload is attributed with the row valid at each instant. -#}
with

policy as (
    select * from {{ ref('stg_policy__ownership') }}
),

ownership as (
    {#- VM UUIDs compare case-insensitively: hypervisors print them in either case. -#}
    select
        scope_type,
        case when scope_type = 'vm' then lower(scope_key) else scope_key end as scope_key,
        tenant_id,
        project_id,
        valid_from_at,
        valid_to_at
    from policy
),

ordered as (
    select
        scope_type,
        scope_key,
        tenant_id,
        project_id,
        valid_from_at,
        {{ gpuledger.open_end('valid_to_at') }} as valid_to_at,
        lead(valid_from_at) over (
            partition by scope_type, scope_key order by valid_from_at
        ) as next_valid_from_at,
        row_number() over (
            partition by scope_type, scope_key order by valid_from_at
        ) as interval_number
    from ownership
),

owned as (
    select
        scope_type,
        scope_key,
        tenant_id,
        project_id,
        valid_from_at,
        valid_to_at
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
        valid_to_at as valid_from_at,
        {{ gpuledger.open_end('next_valid_from_at') }} as valid_to_at
    from ordered
    where valid_to_at < {{ gpuledger.open_end('next_valid_from_at') }}
),

final as (
    select * from owned
    union all
    select * from gap_before_first
    union all
    select * from gap_after
)

select * from final
