{#- Shared endpoint charge lines, under every charging model (to be unioned into
    int_charge_lines). An endpoint's charge in a period is its allocated GPU-hours
    (int_endpoint_allocations) x the class's allocated_gpu_hour rate valid when each segment
    started (int_segments_priced), to the cent, per host tenant, GPU class and rate. It is
    split among the tenants that used the endpoint by their shares (int_endpoint_shares), by
    largest remainder, so the 'shared_endpoint' lines add up to the endpoint's charge to the
    cent; the host tenant, who was charged for those GPU-hours by the charging model, gets the
    same amount back on a negative 'shared_endpoint_hosting' line. The lines of an endpoint net
    to zero, so cost recovery is unchanged. An endpoint with no shares in a period recharges
    nothing. -#}
with

endpoint_allocations as (
    select * from {{ ref('int_endpoint_allocations') }}
),

shares as (
    select * from {{ ref('int_endpoint_shares') }}
),

priced_segments as (
    select * from {{ ref('int_segments_priced') }}
    where charge_basis = 'allocated_gpu_hour'
),

settings as (
    select * from {{ ref('stg_policy__settings') }}
),

shared_endpoints as (
    select distinct
        period,
        endpoint_id
    from shares
),

priced as (
    select
        endpoint_allocations.period,
        endpoint_allocations.endpoint_id,
        endpoint_allocations.host_tenant_id,
        endpoint_allocations.gpu_class,
        endpoint_allocations.confidence,
        endpoint_allocations.gpu_hours,
        priced_segments.rate_card_version,
        priced_segments.unit_price,
        coalesce(priced_segments.currency, settings.currency) as currency
    from endpoint_allocations
    inner join shared_endpoints
        on
            endpoint_allocations.period = shared_endpoints.period
            and endpoint_allocations.endpoint_id = shared_endpoints.endpoint_id
    inner join priced_segments
        on endpoint_allocations.segment_id = priced_segments.segment_id
    cross join settings
),

endpoint_charges as (
    select
        period,
        endpoint_id,
        host_tenant_id,
        gpu_class,
        rate_card_version,
        unit_price,
        currency,
        {{ gpuledger.weakest_confidence('confidence') }} as confidence,
        {{ gpuledger.exact_sum('gpu_hours') }} as gpu_hours,
        cast(
            round({{ gpuledger.exact_sum('gpu_hours') }} * coalesce(unit_price, 0), 2) as decimal(18, 2)
        ) as endpoint_amount
    from priced
    group by period, endpoint_id, host_tenant_id, gpu_class, rate_card_version, unit_price, currency
),

consumer_parts as (
    select
        endpoint_charges.period,
        endpoint_charges.endpoint_id,
        shares.tenant_id,
        endpoint_charges.gpu_class,
        endpoint_charges.rate_card_version,
        endpoint_charges.unit_price,
        endpoint_charges.currency,
        endpoint_charges.confidence,
        shares.weight_versions,
        endpoint_charges.gpu_hours * shares.share as quantity,
        {{ gpuledger.largest_remainder_amount(
            'endpoint_charges.endpoint_amount * shares.share',
            'endpoint_charges.endpoint_amount',
            'endpoint_charges.period, endpoint_charges.endpoint_id, endpoint_charges.host_tenant_id, '
            ~ 'endpoint_charges.gpu_class, endpoint_charges.rate_card_version, endpoint_charges.unit_price',
            'shares.tenant_id'
        ) }} as amount
    from endpoint_charges
    inner join shares
        on
            endpoint_charges.period = shares.period
            and endpoint_charges.endpoint_id = shares.endpoint_id
),

consumer_lines as (
    select
        period,
        tenant_id,
        'shared_endpoint' as charge_component,
        gpu_class,
        cast(round({{ gpuledger.exact_sum('quantity') }}, 6) as decimal(18, 6)) as quantity,
        'gpu_hour' as unit,
        unit_price,
        cast(sum(amount) as decimal(18, 2)) as amount,
        currency,
        rate_card_version,
        case
            when tenant_id = '__unattributed__' then 'unattributed'
            else {{ gpuledger.weakest_confidence('confidence') }}
        end as confidence,
        'share of shared endpoint '
        -- noqa: disable=LT02
        || {% call gpuledger.string_agg("', '", order_by='endpoint_id', distinct=true) -%}
            endpoint_id
        {%- endcall %}
        -- noqa: enable=LT02
        || ' allocated GPU-hours by weighted productive units (weights '
        -- noqa: disable=LT02
        || {% call gpuledger.string_agg("', '", order_by='weight_versions', distinct=true) -%}
            weight_versions
        {%- endcall %} || ')' as description
    from consumer_parts  -- noqa: enable=LT02
    group by period, tenant_id, gpu_class, rate_card_version, unit_price, currency
),

host_lines as (
    select
        period,
        host_tenant_id as tenant_id,
        'shared_endpoint_hosting' as charge_component,
        gpu_class,
        cast(round(-{{ gpuledger.exact_sum('gpu_hours') }}, 6) as decimal(18, 6)) as quantity,
        'gpu_hour' as unit,
        unit_price,
        cast(-sum(endpoint_amount) as decimal(18, 2)) as amount,
        currency,
        rate_card_version,
        {{ gpuledger.weakest_confidence('confidence') }} as confidence,
        'allocated GPU-hours of shared endpoint '
        -- noqa: disable=LT02
        || {% call gpuledger.string_agg("', '", order_by='endpoint_id', distinct=true) -%}
            endpoint_id
        {%- endcall %}
        -- noqa: enable=LT02
        || ' recharged to the tenants that used it' as description
    from endpoint_charges
    group by period, host_tenant_id, gpu_class, rate_card_version, unit_price, currency
),

final as (
    select * from consumer_lines
    union all
    select * from host_lines
)

select * from final
