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
    line's unit price as text; null where the line's price is derived from its amount).
    Built by period (gpuledger.core.period_scope): a line's pieces are of its own period, so
    a build that keeps frozen periods reads only the other periods' segments. -#}
{{ config(**gpuledger.by_period_config()) }}
{%- set string_type = dbt.type_string() %}
{#- the shape of a piece: every branch of the union below has these columns, in this order -#}
{%- set piece_columns = [
    ('period', string_type),
    ('tenant_id', string_type),
    ('charge_component', string_type),
    ('gpu_class', string_type),
    ('rate_card_version', string_type),
    ('price_key', string_type),
    ('evidence_kind', string_type),
    ('evidence_key', string_type),
    ('segment_id', string_type),
    ('endpoint_id', string_type),
    ('evidence_gpu_class', string_type),
    ('started_at', 'timestamp'),
    ('ended_at', 'timestamp'),
    ('reserved_gpus', 'decimal(18, 6)'),
    ('gpu_hours', 'double'),
    ('endpoint_share', 'decimal(20, 12)'),
    ('weight_version', string_type),
    ('productive_unit', string_type),
    ('units', 'bigint'),
    ('unit_weight', 'decimal(18, 6)'),
    ('weighted_units', 'decimal(38, 6)'),
    ('unit_price', 'decimal(18, 6)'),
    ('related_charge_line_id', string_type),
    ('source_batch_id', string_type),
    ('source_file', string_type),
    ('policy_source', string_type),
    ('weight', 'double'),
    ('exact_quantity', 'decimal(18, 6)'),
    ('exact_amount', 'decimal(18, 2)')
] %}
with

priced_segments as (
    select * from {{ ref('int_segments_priced') }}
    where {{ gpuledger.live_period('period') }}
),

segments as (
    select * from {{ ref('int_allocation_segments') }}
    where {{ gpuledger.live_period('period') }}
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
    {#- the requests of the periods this build computes (a month of a fleet's gateway is
        millions of requests; the frozen periods' lines are not computed) -#}
    select * from {{ ref('int_gateway_requests') }}
    where {{ gpuledger.live_period('period') }}
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
        {{- gpuledger.padded_columns(piece_columns, {
            'period': 'priced_segments.period',
            'tenant_id': 'priced_segments.tenant_id',
            'charge_component': "case priced_segments.charge_basis when 'allocated_gpu_hour'"
                ~ " then 'allocated_gpu_hours' else 'burst_usage' end",
            'gpu_class': 'priced_segments.gpu_class',
            'rate_card_version': 'priced_segments.rate_card_version',
            'price_key': "coalesce(cast(priced_segments.unit_price as " ~ string_type ~ "), '')",
            'evidence_kind': "'segment'",
            'evidence_key': 'priced_segments.segment_id',
            'segment_id': 'priced_segments.segment_id',
            'evidence_gpu_class': 'priced_segments.gpu_class',
            'gpu_hours': 'priced_segments.priced_gpu_hours',
            'unit_price': 'priced_segments.unit_price',
            'weight': 'cast(priced_segments.priced_gpu_hours as double)'
        }) }}
    from priced_segments
    cross join settings
    where
        (settings.charging_model = 'allocation_rate' and priced_segments.charge_basis = 'allocated_gpu_hour')
        or (settings.charging_model = 'quota_burst' and priced_segments.charge_basis = 'borrowed_gpu_hour')
),

variable_segments as (
    select
        {{- gpuledger.padded_columns(piece_columns, {
            'period': 'segments.period',
            'tenant_id': 'segments.tenant_id',
            'charge_component': "'variable_usage'",
            'gpu_class': 'segments.gpu_class',
            'evidence_kind': "'segment'",
            'evidence_key': 'segments.segment_id',
            'segment_id': 'segments.segment_id',
            'evidence_gpu_class': 'segments.gpu_class',
            'gpu_hours': 'segments.gpu_hours',
            'weight': 'cast(segments.gpu_hours as double)'
        }) }}
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
    {%- set reservation_key %}
        gpu_class || '|' || cast(valid_from_at as {{ string_type }}) || '|' || cast(started_at as {{ string_type }})
        || '|' || coalesce(service_class, '') || '|' || cast(reserved_gpus as {{ string_type }})
    {%- endset %}
    {%- set reservation_source %}
        'reservations.csv: tenant_id=' || tenant_id || ', gpu_class=' || gpu_class
        || ', valid_from=' || cast(valid_from_at as {{ string_type }})
        || coalesce(', service_class=' || service_class, '')
    {%- endset %}
    select
        {{- gpuledger.padded_columns(piece_columns, {
            'period': 'period',
            'tenant_id': 'tenant_id',
            'charge_component': 'charge_component',
            'gpu_class': 'gpu_class',
            'rate_card_version': 'rate_card_version',
            'price_key': 'price_key',
            'evidence_kind': "'reservation'",
            'evidence_key': reservation_key,
            'evidence_gpu_class': 'gpu_class',
            'started_at': 'started_at',
            'ended_at': 'ended_at',
            'reserved_gpus': 'reserved_gpus',
            'gpu_hours': 'reserved_gpu_hours',
            'unit_price': 'unit_price',
            'policy_source': reservation_source,
            'weight': 'cast(reserved_gpu_hours as double)'
        }) }}
    from reservations
),

pool_pieces as (
    select
        {{- gpuledger.padded_columns(piece_columns, {
            'period': 'pools.period',
            'tenant_id': "'__platform__'",
            'charge_component': "'central_platform'",
            'gpu_class': 'pools.gpu_class',
            'evidence_kind': "'pool'",
            'evidence_key': 'pools.gpu_class',
            'evidence_gpu_class': 'pools.gpu_class',
            'gpu_hours': 'capacity.physical_gpu_hours',
            'policy_source': "'cost_pools.csv: period=' || pools.period || ', gpu_class=' || pools.gpu_class"
                ~ " || ' (the unreserved capacity and unused variable cost of the pool)'",
            'weight': 'cast(1 as double)'
        }) }}
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
        {{- gpuledger.padded_columns(piece_columns, {
            'period': 'period',
            'tenant_id': 'tenant_id',
            'charge_component': 'charge_component',
            'gpu_class': 'gpu_class',
            'rate_card_version': 'rate_card_version',
            'price_key': 'price_key',
            'evidence_kind': "'endpoint_segment'",
            'evidence_key': 'segment_id',
            'segment_id': 'segment_id',
            'endpoint_id': 'endpoint_id',
            'evidence_gpu_class': 'gpu_class',
            'started_at': 'served_from_at',
            'ended_at': 'served_to_at',
            'gpu_hours': 'gpu_hours',
            'endpoint_share': 'endpoint_share',
            'weight_version': 'weight_versions',
            'unit_price': 'unit_price',
            'weight': 'weight'
        }) }}
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
        {{- gpuledger.padded_columns(piece_columns, {
            'period': 'line_endpoints.period',
            'tenant_id': 'line_endpoints.tenant_id',
            'charge_component': 'line_endpoints.charge_component',
            'gpu_class': 'line_endpoints.gpu_class',
            'rate_card_version': 'line_endpoints.rate_card_version',
            'price_key': 'line_endpoints.price_key',
            'evidence_kind': "'endpoint_units'",
            'evidence_key': "line_endpoints.endpoint_id || '|' || weighted_units.weight_version"
                ~ " || '|' || weighted_units.unit",
            'endpoint_id': 'line_endpoints.endpoint_id',
            'endpoint_share': 'shares.share',
            'weight_version': 'weighted_units.weight_version',
            'productive_unit': 'weighted_units.unit',
            'units': 'weighted_units.units',
            'unit_weight': 'weighted_units.weight',
            'weighted_units': 'weighted_units.weighted_units',
            'source_batch_id': 'request_batches.batch_ids',
            'source_file': 'request_batches.file_paths',
            'policy_source': "'endpoint_weights.csv: weight_version=' || weighted_units.weight_version"
                ~ " || ', endpoint_id=' || line_endpoints.endpoint_id || ', unit=' || weighted_units.unit",
            'exact_quantity': 'cast(0 as decimal(18, 6))',
            'exact_amount': 'cast(0 as decimal(18, 2))'
        }) }}
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
        {{- gpuledger.padded_columns(piece_columns, {
            'period': 'usage.period',
            'tenant_id': 'usage.tenant_id',
            'charge_component': "'shared_overhead'",
            'gpu_class': "'shared'",
            'evidence_kind': "'overhead_driver'",
            'evidence_key': 'usage.gpu_class',
            'evidence_gpu_class': 'usage.gpu_class',
            'gpu_hours': 'usage.allocated_gpu_hours',
            'policy_source': 'overhead_ids.policy_source',
            'weight': 'cast(usage.allocated_gpu_hours as double)'
        }) }}
    from usage
    cross join settings
    inner join overhead_ids
        on usage.period = overhead_ids.period
    where settings.overhead_driver = 'allocated_hours'
    union all
    {# the even driver, and the central line: the overhead rows, by amount #}
    select
        {{- gpuledger.padded_columns(piece_columns, {
            'period': 'shared_lines.period',
            'tenant_id': 'shared_lines.tenant_id',
            'charge_component': 'shared_lines.charge_component',
            'gpu_class': 'shared_lines.gpu_class',
            'evidence_kind': "'overhead'",
            'evidence_key': 'overheads.overhead_id',
            'policy_source': "'overheads.csv: period=' || overheads.period || ', overhead_id=' || overheads.overhead_id",
            'weight': 'cast(overheads.overhead_amount as double)'
        }) }}
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
        {{- gpuledger.padded_columns(piece_columns, {
            'period': 'credits.period',
            'tenant_id': 'credits.tenant_id',
            'charge_component': "'credit'",
            'gpu_class': "'shared'",
            'evidence_kind': "'credit'",
            'evidence_key': 'credits.adjustment_id',
            'unit_price': 'cast(-credits.credit_amount as decimal(18, 6))',
            'policy_source': "'credits.csv: period=' || credits.period || ', tenant_id=' || credits.tenant_id"
                ~ " || ', adjustment_id=' || credits.adjustment_id || ' (' || credits.reason || ')'",
            'exact_quantity': 'cast(1 as decimal(18, 6))',
            'exact_amount': 'cast(-credits.credit_amount as decimal(18, 2))'
        }) }}
    from credits
),

unrecovered_pieces as (
    {#- the pool's cost, less what each usage line of its class recovered (the components
        of int_charge_lines_allocation_rate and int_charge_lines_quota_burst) -#}
    select
        {{- gpuledger.padded_columns(piece_columns, {
            'period': 'pools.period',
            'tenant_id': "'__platform__'",
            'charge_component': "'unrecovered_pool_cost'",
            'gpu_class': 'pools.gpu_class',
            'evidence_kind': "'pool'",
            'evidence_key': 'pools.gpu_class',
            'evidence_gpu_class': 'pools.gpu_class',
            'policy_source': "'cost_pools.csv: period=' || pools.period || ', gpu_class=' || pools.gpu_class",
            'exact_quantity': 'cast(1 as decimal(18, 6))',
            'exact_amount': 'pools.total_cost'
        }) }}
    from pools
    union all
    select
        {{- gpuledger.padded_columns(piece_columns, {
            'period': 'charge_lines.period',
            'tenant_id': "'__platform__'",
            'charge_component': "'unrecovered_pool_cost'",
            'gpu_class': 'charge_lines.gpu_class',
            'evidence_kind': "'recovered_line'",
            'evidence_key': 'charge_lines.charge_line_id',
            'evidence_gpu_class': 'charge_lines.gpu_class',
            'unit_price': 'charge_lines.unit_price',
            'related_charge_line_id': 'charge_lines.charge_line_id',
            'exact_quantity': 'cast(0 as decimal(18, 6))',
            'exact_amount': '-charge_lines.amount'
        }) }}
    from charge_lines
    where charge_lines.charge_component in ('allocated_gpu_hours', 'guaranteed_capacity', 'burst_usage')
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
    select * from unrecovered_pieces
)

select * from final
