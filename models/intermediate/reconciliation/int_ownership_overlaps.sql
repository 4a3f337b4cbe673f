{#- Every pair of ownership.csv intervals of one scope that overlap, the earlier (by
    valid_from_at, then tenant_id) first. Two intervals that start at the same instant
    overlap too: the pair is told apart by its row number, not by valid_from_at. -#}
with

ownership as (
    select * from {{ ref('stg_policy__ownership') }}
),

numbered as (
    select
        *,
        row_number() over (
            partition by scope_type, scope_key order by valid_from_at, tenant_id
        ) as interval_number
    from ownership
),

final as (
    select
        earlier.scope_type,
        earlier.scope_key,
        earlier.tenant_id as earlier_tenant_id,
        earlier.valid_from_at as earlier_valid_from_at,
        later.tenant_id as later_tenant_id,
        later.valid_from_at as later_valid_from_at
    from numbered as earlier
    inner join numbered as later
        on
            earlier.scope_type = later.scope_type
            and earlier.scope_key = later.scope_key
            and earlier.interval_number < later.interval_number
            and earlier.valid_from_at < {{ gpuledger.open_end('later.valid_to_at') }}
            and later.valid_from_at < {{ gpuledger.open_end('earlier.valid_to_at') }}
)

select * from final
