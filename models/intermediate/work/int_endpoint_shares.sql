{#- A shared endpoint's tenant shares per period: tenant weighted productive units
    / the endpoint's total. The shares are rounded to 12 decimals by largest remainder, so
    those of an endpoint in a period add up to exactly 1. An endpoint with no weighted units
    in a period has no shares (its cost stays with the tenant that owns its allocations). -#}
with

weighted_units as (
    select * from {{ ref('int_endpoint_weighted_units') }}
),

tenant_units as (
    select
        period,
        endpoint_id,
        tenant_id,
        sum(weighted_units) as weighted_units,
        -- noqa: disable=LT02
        {% call gpuledger.string_agg("', '", order_by='weight_version', distinct=true) -%}
            weight_version
        {%- endcall %} as weight_versions
    from weighted_units  -- noqa: enable=LT02
    group by period, endpoint_id, tenant_id
),

totals as (
    select
        *,
        sum(weighted_units) over (partition by period, endpoint_id) as endpoint_weighted_units
    from tenant_units
),

raw_shares as (
    select
        *,
        cast(weighted_units as double) / cast(endpoint_weighted_units as double) * 1000000000000
            as raw_picos
    from totals
    where endpoint_weighted_units > 0
),

rounded as (
    select
        *,
        floor(raw_picos)
        + case
            when
                row_number()
                    over (
                        partition by period, endpoint_id
                        order by raw_picos - floor(raw_picos) desc, tenant_id
                    )
                <= 1000000000000 - sum(floor(raw_picos)) over (partition by period, endpoint_id)
                then 1
            else 0
        end as share_picos
    from raw_shares
),

final as (
    select
        period,
        endpoint_id,
        tenant_id,
        weight_versions,
        cast(weighted_units as decimal(38, 6)) as weighted_units,
        cast(endpoint_weighted_units as decimal(38, 6)) as endpoint_weighted_units,
        -- decimal(24, 0): Spark keeps the 12 decimals only while the quotient fits 38 digits
        cast(cast(share_picos as decimal(24, 0)) / 1000000000000 as decimal(20, 12)) as share  -- noqa: RF04
    from rounded
)

select * from final
