{#- An allocation segment serves at most one endpoint, once (overlapping endpoint_scopes.csv
    rows, or an endpoint-owned scope also mapped by the policy, would bill it twice).
    Returns each segment with more than one row. -#}
with

endpoint_allocations as (
    select * from {{ ref('int_endpoint_allocations') }}
),

final as (
    select
        segment_id,
        count(*) as row_count,
        -- noqa: disable=LT02
        {% call gpuledger.string_agg("', '", order_by='endpoint_id') -%}
            endpoint_id
        {%- endcall %} as endpoints
    from endpoint_allocations  -- noqa: enable=LT02
    group by segment_id
    having count(*) > 1
)

select * from final
