{#- The evidence behind every recomputed charge line (int_charge_lines), before its quantity
    and amount are spread over it: one row per line grain and piece, each piece either
    weighted (the line's quantity and amount are split over its pieces in proportion to
    `weight`, by largest remainder, in int_charge_line_evidence) or exact (its own
    quantity and amount, which add up to the line's).
    - allocated_gpu_hours, burst_usage: the priced segments (int_segments_priced) of the
      line's rate, weighted by their allocated / borrowed GPU-hours;
    - variable_usage: the segments of the tenant and class, by GPU-hours;
    - guaranteed_capacity: the reservation parts priced at the line's committed rate
      (int_reservations_priced); fixed_capacity: the reservations' parts of the period, both
      by reserved GPU-hours; central_platform: the pool;
    - shared_endpoint: the endpoint's hosting segments x the tenant's share, and, exact and
      of quantity 0, the tenant's weighted units the share comes from; shared_endpoint_hosting:
      the endpoint's segments, by the GPU-hours they served it;
    - shared_overhead: the driver rows (the tenant's allocated GPU-hours per class) under
      the allocated_hours driver, else the overhead rows, by amount;
    - credit: each credit row, exact; unrecovered_pool_cost: the pool's cost less each usage
      line of its class, exact.
    Grain keys: period, tenant, component, class, rate card version and `price_key` (the
    line's unit price as text; null where the line's price is derived from its amount). -#}
with

priced_segments as (
    select * from {{ ref('int_segments_priced') }}
),

segments as (
    select * from {{ ref('int_allocation_segments') }}
),

reservations_priced as (
    select * from {{ ref('int_reservations_priced') }}
),

reservation_periods as (
    select * from {{ ref('int_reservation_periods') }}
),

endpoint_allocations as (
    select * from {{ ref('int_endpoint_allocations') }}
),

shares as (
    select * from {{ ref('int_endpoint_shares') }}
),

weighted_units as (
    select * from {{ ref('int_endpoint_weighted_units') }}
),

gateway_requests as (
    select * from {{ ref('int_gateway_requests') }}
),

requests as (
    select * from {{ ref('stg_requests__requests') }}
),

batches as (
    select * from {{ ref('stg_landing__batches') }}
),

usage as (
    select * from {{ ref('int_usage_by_tenant') }}
),

pools as (
    select * from {{ ref('stg_policy__cost_pools') }}
),

capacity as (
    select * from {{ ref('int_capacity_by_class') }}
),

overheads as (
    select * from {{ ref('stg_policy__overheads') }}
),

credits as (
    select * from {{ ref('stg_policy__credits') }}
),

shared_lines as (
    select * from {{ ref('int_charge_lines_shared') }}
),

charge_lines as (
    select * from {{ ref('int_charge_lines') }}
),

settings as (
    select * from {{ ref('stg_policy__settings') }}
),

usage_segments as (
    {#- the priced segments each charging model bills by its own rate -#}
    select
        priced_segments.period,
        priced_segments.tenant_id,
        case priced_segments.charge_basis
            when 'allocated_gpu_hour' then 'allocated_gpu_hours'
            else 'burst_usage'
        end as charge_component,
        priced_segments.gpu_class,
        priced_segments.rate_card_version,
        coalesce(cast(priced_segments.unit_price as {{ dbt.type_string() }}), '') as price_key,
        'segment' as evidence_kind,
        priced_segments.segment_id as evidence_key,
        priced_segments.segment_id,
        cast(null as {{ dbt.type_string() }}) as endpoint_id,
        priced_segments.gpu_class as evidence_gpu_class,
        cast(null as timestamp) as started_at,
        cast(null as timestamp) as ended_at,
        cast(null as decimal(18, 6)) as reserved_gpus,
        priced_segments.priced_gpu_hours as gpu_hours,
        cast(null as decimal(20, 12)) as endpoint_share,
        cast(null as {{ dbt.type_string() }}) as weight_version,
        cast(null as {{ dbt.type_string() }}) as productive_unit,
        cast(null as bigint) as units,
        cast(null as decimal(18, 6)) as unit_weight,
        cast(null as decimal(38, 6)) as weighted_units,
        priced_segments.unit_price,
        cast(null as {{ dbt.type_string() }}) as related_charge_line_id,
        cast(null as {{ dbt.type_string() }}) as source_batch_id,
        cast(null as {{ dbt.type_string() }}) as source_file,
        cast(null as {{ dbt.type_string() }}) as policy_source,
        cast(priced_segments.priced_gpu_hours as double) as weight,
        cast(null as decimal(18, 6)) as exact_quantity,
        cast(null as decimal(18, 2)) as exact_amount
    from priced_segments
    cross join settings
    where
        (settings.charging_model = 'allocation_rate' and priced_segments.charge_basis = 'allocated_gpu_hour')
        or (settings.charging_model = 'quota_burst' and priced_segments.charge_basis = 'borrowed_gpu_hour')
),

variable_segments as (
    select
        segments.period,
        segments.tenant_id,
        'variable_usage' as charge_component,
        segments.gpu_class,
        cast(null as {{ dbt.type_string() }}) as rate_card_version,
        cast(null as {{ dbt.type_string() }}) as price_key,
        'segment' as evidence_kind,
        segments.segment_id as evidence_key,
        segments.segment_id,
        cast(null as {{ dbt.type_string() }}) as endpoint_id,
        segments.gpu_class as evidence_gpu_class,
        cast(null as timestamp) as started_at,
        cast(null as timestamp) as ended_at,
        cast(null as decimal(18, 6)) as reserved_gpus,
        segments.gpu_hours,
        cast(null as decimal(20, 12)) as endpoint_share,
        cast(null as {{ dbt.type_string() }}) as weight_version,
        cast(null as {{ dbt.type_string() }}) as productive_unit,
        cast(null as bigint) as units,
        cast(null as decimal(18, 6)) as unit_weight,
        cast(null as decimal(38, 6)) as weighted_units,
        cast(null as decimal(18, 6)) as unit_price,
        cast(null as {{ dbt.type_string() }}) as related_charge_line_id,
        cast(null as {{ dbt.type_string() }}) as source_batch_id,
        cast(null as {{ dbt.type_string() }}) as source_file,
        cast(null as {{ dbt.type_string() }}) as policy_source,
        cast(segments.gpu_hours as double) as weight,
        cast(null as decimal(18, 6)) as exact_quantity,
        cast(null as decimal(18, 2)) as exact_amount
    from segments
    cross join settings
    where settings.charging_model = 'cost_pool'
),

reservations as (
    select
        reservations_priced.period,
        reservations_priced.tenant_id,
        'guaranteed_capacity' as charge_component,
        reservations_priced.gpu_class,
        reservations_priced.rate_card_version,
        coalesce(cast(reservations_priced.unit_price as {{ dbt.type_string() }}), '') as price_key,
        reservations_priced.priced_from_at as started_at,
        reservations_priced.priced_to_at as ended_at,
        reservations_priced.service_class,
        reservations_priced.reserved_gpus,
        reservations_priced.valid_from_at,
        reservations_priced.reserved_gpu_hours,
        reservations_priced.unit_price
    from reservations_priced
    cross join settings
    where settings.charging_model = 'quota_burst'
    union all
    select
        reservation_periods.period,
        reservation_periods.tenant_id,
        'fixed_capacity' as charge_component,
        reservation_periods.gpu_class,
        cast(null as {{ dbt.type_string() }}) as rate_card_version,
        cast(null as {{ dbt.type_string() }}) as price_key,
        reservation_periods.reserved_from_at as started_at,
        reservation_periods.reserved_to_at as ended_at,
        reservation_periods.service_class,
        reservation_periods.reserved_gpus,
        reservation_periods.valid_from_at,
        reservation_periods.reserved_gpu_hours,
        cast(null as decimal(18, 6)) as unit_price
    from reservation_periods
    cross join settings
    where settings.charging_model = 'cost_pool'
),

reservation_pieces as (
    select
        period,
        tenant_id,
        charge_component,
        gpu_class,
        rate_card_version,
        price_key,
        'reservation' as evidence_kind,
        gpu_class || '|' || cast(valid_from_at as {{ dbt.type_string() }}) || '|'
        || cast(started_at as {{ dbt.type_string() }}) || '|' || coalesce(service_class, '') || '|'
        || cast(reserved_gpus as {{ dbt.type_string() }}) as evidence_key,
        cast(null as {{ dbt.type_string() }}) as segment_id,
        cast(null as {{ dbt.type_string() }}) as endpoint_id,
        gpu_class as evidence_gpu_class,
        started_at,
        ended_at,
        reserved_gpus,
        reserved_gpu_hours as gpu_hours,
        cast(null as decimal(20, 12)) as endpoint_share,
        cast(null as {{ dbt.type_string() }}) as weight_version,
        cast(null as {{ dbt.type_string() }}) as productive_unit,
        cast(null as bigint) as units,
        cast(null as decimal(18, 6)) as unit_weight,
        cast(null as decimal(38, 6)) as weighted_units,
        unit_price,
        cast(null as {{ dbt.type_string() }}) as related_charge_line_id,
        cast(null as {{ dbt.type_string() }}) as source_batch_id,
        cast(null as {{ dbt.type_string() }}) as source_file,
        'reservations.csv: tenant_id=' || tenant_id || ', gpu_class=' || gpu_class
        || ', valid_from=' || cast(valid_from_at as {{ dbt.type_string() }})
        || coalesce(', service_class=' || service_class, '') as policy_source,
        cast(reserved_gpu_hours as double) as weight,
        cast(null as decimal(18, 6)) as exact_quantity,
        cast(null as decimal(18, 2)) as exact_amount
    from reservations
),

pool_pieces as (
    select
        pools.period,
        '__platform__' as tenant_id,
        'central_platform' as charge_component,
        pools.gpu_class,
        cast(null as {{ dbt.type_string() }}) as rate_card_version,
        cast(null as {{ dbt.type_string() }}) as price_key,
        'pool' as evidence_kind,
        pools.gpu_class as evidence_key,
        cast(null as {{ dbt.type_string() }}) as segment_id,
        cast(null as {{ dbt.type_string() }}) as endpoint_id,
        pools.gpu_class as evidence_gpu_class,
        cast(null as timestamp) as started_at,
        cast(null as timestamp) as ended_at,
        cast(null as decimal(18, 6)) as reserved_gpus,
        capacity.physical_gpu_hours as gpu_hours,
        cast(null as decimal(20, 12)) as endpoint_share,
        cast(null as {{ dbt.type_string() }}) as weight_version,
        cast(null as {{ dbt.type_string() }}) as productive_unit,
        cast(null as bigint) as units,
        cast(null as decimal(18, 6)) as unit_weight,
        cast(null as decimal(38, 6)) as weighted_units,
        cast(null as decimal(18, 6)) as unit_price,
        cast(null as {{ dbt.type_string() }}) as related_charge_line_id,
        cast(null as {{ dbt.type_string() }}) as source_batch_id,
        cast(null as {{ dbt.type_string() }}) as source_file,
        'cost_pools.csv: period=' || pools.period || ', gpu_class=' || pools.gpu_class
        || ' (the unreserved capacity and unused variable cost of the pool)' as policy_source,
        cast(1 as double) as weight,
        cast(null as decimal(18, 6)) as exact_quantity,
        cast(null as decimal(18, 2)) as exact_amount
    from pools
    cross join settings
    left join capacity
        on
            pools.period = capacity.period
            and pools.gpu_class = capacity.gpu_class
    where settings.charging_model = 'cost_pool'
),

shared_endpoints as (
    select distinct
        period,
        endpoint_id
    from shares
),

endpoint_segments as (
    {#- the segments of endpoints that have shares in their period, priced as they were -#}
    select
        endpoint_allocations.period,
        endpoint_allocations.endpoint_id,
        endpoint_allocations.host_tenant_id,
        endpoint_allocations.segment_id,
        endpoint_allocations.gpu_class,
        endpoint_allocations.served_from_at,
        endpoint_allocations.served_to_at,
        endpoint_allocations.gpu_hours,
        priced_segments.rate_card_version,
        priced_segments.unit_price,
        coalesce(cast(priced_segments.unit_price as {{ dbt.type_string() }}), '') as price_key
    from endpoint_allocations
    inner join shared_endpoints
        on
            endpoint_allocations.period = shared_endpoints.period
            and endpoint_allocations.endpoint_id = shared_endpoints.endpoint_id
    inner join priced_segments
        on
            endpoint_allocations.segment_id = priced_segments.segment_id
            and priced_segments.charge_basis = 'allocated_gpu_hour'
),

endpoint_parts as (
    select
        endpoint_segments.period,
        shares.tenant_id,
        'shared_endpoint' as charge_component,
        endpoint_segments.gpu_class,
        endpoint_segments.rate_card_version,
        endpoint_segments.price_key,
        endpoint_segments.endpoint_id,
        endpoint_segments.segment_id,
        endpoint_segments.served_from_at,
        endpoint_segments.served_to_at,
        endpoint_segments.gpu_hours,
        shares.share as endpoint_share,
        shares.weight_versions,
        endpoint_segments.unit_price,
        cast(endpoint_segments.gpu_hours as double) * cast(shares.share as double) as weight
    from endpoint_segments
    inner join shares
        on
            endpoint_segments.period = shares.period
            and endpoint_segments.endpoint_id = shares.endpoint_id
    union all
    select
        period,
        host_tenant_id as tenant_id,
        'shared_endpoint_hosting' as charge_component,
        gpu_class,
        rate_card_version,
        price_key,
        endpoint_id,
        segment_id,
        served_from_at,
        served_to_at,
        gpu_hours,
        cast(null as decimal(20, 12)) as endpoint_share,
        cast(null as {{ dbt.type_string() }}) as weight_versions,
        unit_price,
        cast(gpu_hours as double) as weight
    from endpoint_segments
),

endpoint_segment_pieces as (
    select
        period,
        tenant_id,
        charge_component,
        gpu_class,
        rate_card_version,
        price_key,
        'endpoint_segment' as evidence_kind,
        segment_id as evidence_key,
        segment_id,
        endpoint_id,
        gpu_class as evidence_gpu_class,
        served_from_at as started_at,
        served_to_at as ended_at,
        cast(null as decimal(18, 6)) as reserved_gpus,
        gpu_hours,
        endpoint_share,
        weight_versions as weight_version,
        cast(null as {{ dbt.type_string() }}) as productive_unit,
        cast(null as bigint) as units,
        cast(null as decimal(18, 6)) as unit_weight,
        cast(null as decimal(38, 6)) as weighted_units,
        unit_price,
        cast(null as {{ dbt.type_string() }}) as related_charge_line_id,
        cast(null as {{ dbt.type_string() }}) as source_batch_id,
        cast(null as {{ dbt.type_string() }}) as source_file,
        cast(null as {{ dbt.type_string() }}) as policy_source,
        weight,
        cast(null as decimal(18, 6)) as exact_quantity,
        cast(null as decimal(18, 2)) as exact_amount
    from endpoint_parts
),

request_batches as (
    select
        gateway_requests.period,
        gateway_requests.endpoint_id,
        gateway_requests.tenant_id,
        -- noqa: disable=LT02
        {% call gpuledger.string_agg("', '", order_by='requests.batch_id', distinct=true) -%}
            requests.batch_id
        {%- endcall %} as batch_ids,
        {% call gpuledger.string_agg("', '", order_by='batches.file_path', distinct=true) -%}
            batches.file_path
        {%- endcall %} as file_paths
    from gateway_requests  -- noqa: enable=LT02
    inner join requests
        on gateway_requests.request_id = requests.request_id
    left join batches
        on requests.batch_id = batches.batch_id
    where gateway_requests.is_success
    group by gateway_requests.period, gateway_requests.endpoint_id, gateway_requests.tenant_id
),

line_endpoints as (
    select distinct
        period,
        tenant_id,
        charge_component,
        gpu_class,
        rate_card_version,
        price_key,
        endpoint_id
    from endpoint_parts
    where charge_component = 'shared_endpoint'
),

endpoint_unit_pieces as (
    select
        line_endpoints.period,
        line_endpoints.tenant_id,
        line_endpoints.charge_component,
        line_endpoints.gpu_class,
        line_endpoints.rate_card_version,
        line_endpoints.price_key,
        'endpoint_units' as evidence_kind,
        line_endpoints.endpoint_id || '|' || weighted_units.weight_version || '|' || weighted_units.unit
            as evidence_key,
        cast(null as {{ dbt.type_string() }}) as segment_id,
        line_endpoints.endpoint_id,
        cast(null as {{ dbt.type_string() }}) as evidence_gpu_class,
        cast(null as timestamp) as started_at,
        cast(null as timestamp) as ended_at,
        cast(null as decimal(18, 6)) as reserved_gpus,
        cast(null as double) as gpu_hours,
        shares.share as endpoint_share,
        weighted_units.weight_version,
        weighted_units.unit as productive_unit,
        weighted_units.units,
        weighted_units.weight as unit_weight,
        weighted_units.weighted_units,
        cast(null as decimal(18, 6)) as unit_price,
        cast(null as {{ dbt.type_string() }}) as related_charge_line_id,
        request_batches.batch_ids as source_batch_id,
        request_batches.file_paths as source_file,
        'endpoint_weights.csv: weight_version=' || weighted_units.weight_version || ', endpoint_id='
        || line_endpoints.endpoint_id || ', unit=' || weighted_units.unit as policy_source,
        cast(null as double) as weight,
        cast(0 as decimal(18, 6)) as exact_quantity,
        cast(0 as decimal(18, 2)) as exact_amount
    from line_endpoints
    inner join weighted_units
        on
            line_endpoints.period = weighted_units.period
            and line_endpoints.endpoint_id = weighted_units.endpoint_id
            and line_endpoints.tenant_id = weighted_units.tenant_id
    inner join shares
        on
            line_endpoints.period = shares.period
            and line_endpoints.endpoint_id = shares.endpoint_id
            and line_endpoints.tenant_id = shares.tenant_id
    left join request_batches
        on
            line_endpoints.period = request_batches.period
            and line_endpoints.endpoint_id = request_batches.endpoint_id
            and line_endpoints.tenant_id = request_batches.tenant_id
),

overhead_ids as (
    select
        period,
        -- noqa: disable=LT02
        'overheads.csv: period=' || period || ', overhead_id='
        || {% call gpuledger.string_agg("', '", order_by='overhead_id') -%}
            overhead_id
        {%- endcall %} as policy_source
    from overheads  -- noqa: enable=LT02
    group by period
),

overhead_pieces as (
    {#- the allocated_hours driver: the tenant's allocated GPU-hours of each class -#}
    select
        usage.period,
        usage.tenant_id,
        'shared_overhead' as charge_component,
        'shared' as gpu_class,
        cast(null as {{ dbt.type_string() }}) as rate_card_version,
        cast(null as {{ dbt.type_string() }}) as price_key,
        'overhead_driver' as evidence_kind,
        usage.gpu_class as evidence_key,
        cast(null as {{ dbt.type_string() }}) as segment_id,
        cast(null as {{ dbt.type_string() }}) as endpoint_id,
        usage.gpu_class as evidence_gpu_class,
        cast(null as timestamp) as started_at,
        cast(null as timestamp) as ended_at,
        cast(null as decimal(18, 6)) as reserved_gpus,
        usage.allocated_gpu_hours as gpu_hours,
        cast(null as decimal(20, 12)) as endpoint_share,
        cast(null as {{ dbt.type_string() }}) as weight_version,
        cast(null as {{ dbt.type_string() }}) as productive_unit,
        cast(null as bigint) as units,
        cast(null as decimal(18, 6)) as unit_weight,
        cast(null as decimal(38, 6)) as weighted_units,
        cast(null as decimal(18, 6)) as unit_price,
        cast(null as {{ dbt.type_string() }}) as related_charge_line_id,
        cast(null as {{ dbt.type_string() }}) as source_batch_id,
        cast(null as {{ dbt.type_string() }}) as source_file,
        overhead_ids.policy_source,
        cast(usage.allocated_gpu_hours as double) as weight,
        cast(null as decimal(18, 6)) as exact_quantity,
        cast(null as decimal(18, 2)) as exact_amount
    from usage
    cross join settings
    inner join overhead_ids
        on usage.period = overhead_ids.period
    where settings.overhead_driver = 'allocated_hours'
    union all
    {# the even driver, and the central line: the overhead rows, by amount #}
    select
        shared_lines.period,
        shared_lines.tenant_id,
        shared_lines.charge_component,
        shared_lines.gpu_class,
        cast(null as {{ dbt.type_string() }}) as rate_card_version,
        cast(null as {{ dbt.type_string() }}) as price_key,
        'overhead' as evidence_kind,
        overheads.overhead_id as evidence_key,
        cast(null as {{ dbt.type_string() }}) as segment_id,
        cast(null as {{ dbt.type_string() }}) as endpoint_id,
        cast(null as {{ dbt.type_string() }}) as evidence_gpu_class,
        cast(null as timestamp) as started_at,
        cast(null as timestamp) as ended_at,
        cast(null as decimal(18, 6)) as reserved_gpus,
        cast(null as double) as gpu_hours,
        cast(null as decimal(20, 12)) as endpoint_share,
        cast(null as {{ dbt.type_string() }}) as weight_version,
        cast(null as {{ dbt.type_string() }}) as productive_unit,
        cast(null as bigint) as units,
        cast(null as decimal(18, 6)) as unit_weight,
        cast(null as decimal(38, 6)) as weighted_units,
        cast(null as decimal(18, 6)) as unit_price,
        cast(null as {{ dbt.type_string() }}) as related_charge_line_id,
        cast(null as {{ dbt.type_string() }}) as source_batch_id,
        cast(null as {{ dbt.type_string() }}) as source_file,
        'overheads.csv: period=' || overheads.period || ', overhead_id=' || overheads.overhead_id
            as policy_source,
        cast(overheads.overhead_amount as double) as weight,
        cast(null as decimal(18, 6)) as exact_quantity,
        cast(null as decimal(18, 2)) as exact_amount
    from shared_lines
    cross join settings
    inner join overheads
        on shared_lines.period = overheads.period
    where
        shared_lines.charge_component = 'shared_overhead'
        and (settings.overhead_driver != 'allocated_hours' or shared_lines.tenant_id = '__platform__')
),

credit_pieces as (
    select
        credits.period,
        credits.tenant_id,
        'credit' as charge_component,
        'shared' as gpu_class,
        cast(null as {{ dbt.type_string() }}) as rate_card_version,
        cast(null as {{ dbt.type_string() }}) as price_key,
        'credit' as evidence_kind,
        credits.adjustment_id as evidence_key,
        cast(null as {{ dbt.type_string() }}) as segment_id,
        cast(null as {{ dbt.type_string() }}) as endpoint_id,
        cast(null as {{ dbt.type_string() }}) as evidence_gpu_class,
        cast(null as timestamp) as started_at,
        cast(null as timestamp) as ended_at,
        cast(null as decimal(18, 6)) as reserved_gpus,
        cast(null as double) as gpu_hours,
        cast(null as decimal(20, 12)) as endpoint_share,
        cast(null as {{ dbt.type_string() }}) as weight_version,
        cast(null as {{ dbt.type_string() }}) as productive_unit,
        cast(null as bigint) as units,
        cast(null as decimal(18, 6)) as unit_weight,
        cast(null as decimal(38, 6)) as weighted_units,
        cast(-credits.credit_amount as decimal(18, 6)) as unit_price,
        cast(null as {{ dbt.type_string() }}) as related_charge_line_id,
        cast(null as {{ dbt.type_string() }}) as source_batch_id,
        cast(null as {{ dbt.type_string() }}) as source_file,
        'credits.csv: period=' || credits.period || ', tenant_id=' || credits.tenant_id
        || ', adjustment_id=' || credits.adjustment_id || ' (' || credits.reason || ')' as policy_source,
        cast(null as double) as weight,
        cast(1 as decimal(18, 6)) as exact_quantity,
        cast(-credits.credit_amount as decimal(18, 2)) as exact_amount
    from credits
),

unrecovered_pieces as (
    {#- the pool's cost, less what each usage line of its class recovered (the components
        of int_charge_lines_allocation_rate and int_charge_lines_quota_burst) -#}
    select
        pools.period,
        '__platform__' as tenant_id,
        'unrecovered_pool_cost' as charge_component,
        pools.gpu_class,
        cast(null as {{ dbt.type_string() }}) as rate_card_version,
        cast(null as {{ dbt.type_string() }}) as price_key,
        'pool' as evidence_kind,
        pools.gpu_class as evidence_key,
        cast(null as {{ dbt.type_string() }}) as related_charge_line_id,
        cast(null as decimal(18, 6)) as unit_price,
        'cost_pools.csv: period=' || pools.period || ', gpu_class=' || pools.gpu_class as policy_source,
        cast(1 as decimal(18, 6)) as exact_quantity,
        pools.total_cost as exact_amount
    from pools
    union all
    select
        charge_lines.period,
        '__platform__' as tenant_id,
        'unrecovered_pool_cost' as charge_component,
        charge_lines.gpu_class,
        cast(null as {{ dbt.type_string() }}) as rate_card_version,
        cast(null as {{ dbt.type_string() }}) as price_key,
        'recovered_line' as evidence_kind,
        charge_lines.charge_line_id as evidence_key,
        charge_lines.charge_line_id as related_charge_line_id,
        charge_lines.unit_price,
        cast(null as {{ dbt.type_string() }}) as policy_source,
        cast(0 as decimal(18, 6)) as exact_quantity,
        -charge_lines.amount as exact_amount
    from charge_lines
    where charge_lines.charge_component in ('allocated_gpu_hours', 'guaranteed_capacity', 'burst_usage')
),

recovery_pieces as (
    select
        unrecovered_pieces.period,
        unrecovered_pieces.tenant_id,
        unrecovered_pieces.charge_component,
        unrecovered_pieces.gpu_class,
        unrecovered_pieces.rate_card_version,
        unrecovered_pieces.price_key,
        unrecovered_pieces.evidence_kind,
        unrecovered_pieces.evidence_key,
        cast(null as {{ dbt.type_string() }}) as segment_id,
        cast(null as {{ dbt.type_string() }}) as endpoint_id,
        unrecovered_pieces.gpu_class as evidence_gpu_class,
        cast(null as timestamp) as started_at,
        cast(null as timestamp) as ended_at,
        cast(null as decimal(18, 6)) as reserved_gpus,
        cast(null as double) as gpu_hours,
        cast(null as decimal(20, 12)) as endpoint_share,
        cast(null as {{ dbt.type_string() }}) as weight_version,
        cast(null as {{ dbt.type_string() }}) as productive_unit,
        cast(null as bigint) as units,
        cast(null as decimal(18, 6)) as unit_weight,
        cast(null as decimal(38, 6)) as weighted_units,
        unrecovered_pieces.unit_price,
        unrecovered_pieces.related_charge_line_id,
        cast(null as {{ dbt.type_string() }}) as source_batch_id,
        cast(null as {{ dbt.type_string() }}) as source_file,
        unrecovered_pieces.policy_source,
        cast(null as double) as weight,
        unrecovered_pieces.exact_quantity,
        unrecovered_pieces.exact_amount
    from unrecovered_pieces
),

final as (
    select * from usage_segments
    union all
    select * from variable_segments
    union all
    select * from reservation_pieces
    union all
    select * from pool_pieces
    union all
    select * from endpoint_segment_pieces
    union all
    select * from endpoint_unit_pieces
    union all
    select * from overhead_pieces
    union all
    select * from credit_pieces
    union all
    select * from recovery_pieces
)

select * from final
