{#- One row per period and reconciliation check (DESIGN.md "Period close"): its status
    (pass | fail | not_applicable | info), whether a failure blocks the close, the observed
    figure against its limit, and a detail a reviewer can act on. -#}
with

periods as (
    select * from {{ ref('int_periods') }}
),

capacity as (
    select * from {{ ref('int_capacity_by_class') }}
),

usage as (
    select * from {{ ref('int_usage_by_tenant') }}
),

timeline as (
    select * from {{ ref('int_class_timeline') }}
),

segments as (
    select * from {{ ref('int_allocation_segments') }}
),

charges as (
    select * from {{ ref('int_charge_lines') }}
),

pools as (
    select * from {{ ref('stg_policy__cost_pools') }}
),

overheads as (
    select * from {{ ref('stg_policy__overheads') }}
),

settings as (
    select * from {{ ref('stg_policy__settings') }}
),

jobs as (
    select * from {{ ref('stg_slurm__jobs') }}
),

ownership as (
    select * from {{ ref('stg_policy__ownership') }}
),

quarantine as (
    select * from {{ ref('stg_landing__quarantine') }}
),

inventory_findings as (
    select * from {{ ref('fact_inventory_reconciliation') }}
),

endpoint_reconciliation as (
    select * from {{ ref('fact_endpoint_reconciliation') }}
),

unserved as (
    select * from {{ ref('int_unserved_successes') }}
),

conservation as (
    select * from {{ ref('int_device_conservation') }}
),

class_usage as (
    select
        period,
        gpu_class,
        sum(allocated_gpu_hours) as allocated_gpu_hours
    from usage
    group by period, gpu_class
),

identity as (
    select
        coalesce(capacity.period, class_usage.period) as period,
        coalesce(capacity.gpu_class, class_usage.gpu_class) as gpu_class,
        coalesce(capacity.physical_gpu_hours, 0) as physical_gpu_hours,
        coalesce(class_usage.allocated_gpu_hours, 0) as allocated_gpu_hours,
        coalesce(capacity.physical_gpu_hours, 0)
        - coalesce(class_usage.allocated_gpu_hours, 0) as unallocated_gpu_hours
    from capacity
    full outer join class_usage
        on capacity.period = class_usage.period and capacity.gpu_class = class_usage.gpu_class
    where coalesce(capacity.gpu_class, class_usage.gpu_class) != 'unknown'
),

check_capacity_identity as (
    select
        periods.period,
        'capacity_identity' as check_name,
        coalesce(sum(case
            when identity.unallocated_gpu_hours < -0.000001
                then -identity.unallocated_gpu_hours
            else 0
        end), 0) as observed_value,
        cast(0 as double) as limit_value,
        'gpu_hours over physical' as unit,
        -- noqa: disable=LT02
        coalesce({% call gpuledger.string_agg("'; '", order_by='identity.gpu_class') -%}
            identity.gpu_class
            || ': physical '
            || cast(round(identity.physical_gpu_hours, 3) as {{ dbt.type_string() }})
            || ' = allocated ' || cast(round(identity.allocated_gpu_hours, 3) as {{ dbt.type_string() }})
            || ' + unallocated ' || cast(round(identity.unallocated_gpu_hours, 3) as {{ dbt.type_string() }})
            || ' + unavailable 0'
        {%- endcall %}, 'no capacity or allocations') as detail
    from periods  -- noqa: enable=LT02
    left join identity
        on periods.period = identity.period
    group by periods.period
),

capacity_violations as (
    select
        period,
        gpu_class,
        count(*) as interval_count,
        min(interval_start_at) as first_at,
        max(interval_end_at) as last_at,
        max(allocated_gpu_equivalents - in_service_gpus) as worst_excess,
        sum((allocated_gpu_equivalents - in_service_gpus) * interval_hours) as excess_gpu_hours
    from timeline
    where allocated_gpu_equivalents > in_service_gpus and gpu_class != 'unknown'
    group by period, gpu_class
),

reservation_violations as (
    select
        period,
        gpu_class,
        count(*) as interval_count,
        min(interval_start_at) as first_at,
        max(interval_end_at) as last_at,
        max(reserved_gpus - in_service_gpus) as worst_excess,
        sum((reserved_gpus - in_service_gpus) * interval_hours) as excess_gpu_hours
    from timeline
    where reserved_gpus > in_service_gpus
    group by period, gpu_class
),

check_within_capacity as (
    select
        periods.period,
        'allocation_within_capacity' as check_name,
        coalesce(sum(capacity_violations.excess_gpu_hours), 0) as observed_value,
        cast(0 as double) as limit_value,
        'gpu_hours over capacity' as unit,
        -- noqa: disable=LT02
        coalesce({% call gpuledger.string_agg("'; '", order_by='capacity_violations.gpu_class') -%}
            capacity_violations.gpu_class || ': ' || cast(capacity_violations.interval_count as {{ dbt.type_string() }})
            || ' intervals between ' || cast(capacity_violations.first_at as {{ dbt.type_string() }})
            || ' and ' || cast(capacity_violations.last_at as {{ dbt.type_string() }}) || ', worst '
            || cast(capacity_violations.worst_excess as {{ dbt.type_string() }})
            || ' GPU-equivalents above the GPUs in service'
        {%- endcall %}, 'every instant within capacity') as detail
    from periods  -- noqa: enable=LT02
    left join capacity_violations
        on periods.period = capacity_violations.period
    group by periods.period
),

check_reservations as (
    select
        periods.period,
        'reservations_within_capacity' as check_name,
        coalesce(sum(reservation_violations.excess_gpu_hours), 0) as observed_value,
        cast(0 as double) as limit_value,
        'reserved gpu_hours over capacity' as unit,
        -- noqa: disable=LT02
        coalesce({% call gpuledger.string_agg("'; '", order_by='reservation_violations.gpu_class') -%}
            reservation_violations.gpu_class
            || ': '
            || cast(reservation_violations.interval_count as {{ dbt.type_string() }})
            || ' intervals between ' || cast(reservation_violations.first_at as {{ dbt.type_string() }})
            || ' and ' || cast(reservation_violations.last_at as {{ dbt.type_string() }}) || ', worst '
            || cast(reservation_violations.worst_excess as {{ dbt.type_string() }})
            || ' GPUs reserved above the GPUs in service'
        {%- endcall %}, 'reservations fit the approved inventory at every instant') as detail
    from periods  -- noqa: enable=LT02
    left join reservation_violations
        on periods.period = reservation_violations.period
    group by periods.period
),

unattributed as (
    select
        period,
        sum(gpu_hours) as total_gpu_hours,
        sum(case when tenant_id = '__unattributed__' then gpu_hours else 0 end)
            as unattributed_gpu_hours
    from segments
    group by period
),

check_unattributed_hours as (
    select
        periods.period,
        'unattributed_gpu_hours' as check_name,
        case
            when coalesce(unattributed.total_gpu_hours, 0) > 0
                then
                    100 * cast(unattributed.unattributed_gpu_hours as double)
                    / cast(unattributed.total_gpu_hours as double)
            else 0
        end as observed_value,
        cast(settings.unattributed_tolerance_pct as double) as limit_value,
        'percent of allocated gpu_hours' as unit,
        cast(round(coalesce(unattributed.unattributed_gpu_hours, 0), 3) as {{ dbt.type_string() }})
        || ' of ' || cast(round(coalesce(unattributed.total_gpu_hours, 0), 3) as {{ dbt.type_string() }})
        || ' GPU-hours have no owner' as detail
    from periods
    cross join settings
    left join unattributed
        on periods.period = unattributed.period
),

charge_totals as (
    select
        period,
        sum(case
            when charge_component != 'credit' and tenant_id != '__platform__'
                then amount
            else 0
        end) as charged_amount,
        sum(case when tenant_id = '__unattributed__' then amount else 0 end) as unattributed_amount
    from charges
    group by period
),

check_unattributed_cost as (
    select
        periods.period,
        'unattributed_cost' as check_name,
        case
            when coalesce(charge_totals.charged_amount, 0) > 0
                then
                    100 * cast(charge_totals.unattributed_amount as double)
                    / cast(charge_totals.charged_amount as double)
            else 0
        end as observed_value,
        cast(settings.unattributed_tolerance_pct as double) as limit_value,
        'percent of tenant charges' as unit,
        cast(coalesce(charge_totals.unattributed_amount, 0) as {{ dbt.type_string() }})
        || ' of ' || cast(coalesce(charge_totals.charged_amount, 0) as {{ dbt.type_string() }})
        || ' charged to the suspense line' as detail
    from periods
    cross join settings
    left join charge_totals
        on periods.period = charge_totals.period
),

pool_lines as (
    select
        period,
        gpu_class,
        sum(amount) as recovered_amount
    from charges
    where gpu_class != 'shared'
    group by period, gpu_class
),

overhead_totals as (
    select
        period,
        sum(overhead_amount) as total_cost
    from overheads
    group by period
),

shared_lines as (
    select
        period,
        sum(amount) as recovered_amount
    from charges
    where charge_component = 'shared_overhead'
    group by period
),

recovery as (
    select
        pools.period,
        pools.gpu_class,
        pools.total_cost,
        coalesce(pool_lines.recovered_amount, 0) as recovered_amount
    from pools
    left join pool_lines
        on pools.period = pool_lines.period and pools.gpu_class = pool_lines.gpu_class
    union all
    select
        overhead_totals.period,
        'shared' as gpu_class,
        overhead_totals.total_cost,
        coalesce(shared_lines.recovered_amount, 0) as recovered_amount
    from overhead_totals
    left join shared_lines
        on overhead_totals.period = shared_lines.period
),

check_cost_recovery as (
    select
        periods.period,
        'cost_recovery' as check_name,
        coalesce(sum(abs(recovery.total_cost - recovery.recovered_amount)), 0) as observed_value,
        cast(0.005 as double) as limit_value,
        'currency units unreconciled' as unit,
        -- noqa: disable=LT02
        coalesce({% call gpuledger.string_agg("'; '", order_by='recovery.gpu_class') -%}
            recovery.gpu_class || ': pool ' || cast(recovery.total_cost as {{ dbt.type_string() }})
            || ' = lines ' || cast(recovery.recovered_amount as {{ dbt.type_string() }})
        {%- endcall %}, 'no cost pool or overhead for the period') as detail,
        -- noqa: enable=LT02
        count(recovery.gpu_class) as pool_count
    from periods
    left join recovery
        on periods.period = recovery.period
    group by periods.period
),

check_negative_intervals as (
    select
        periods.period,
        'no_negative_intervals' as check_name,
        cast(count(jobs.workload_id) as double) as observed_value,
        cast(0 as double) as limit_value,
        'workloads' as unit,
        -- noqa: disable=LT02
        coalesce({% call gpuledger.string_agg("', '", order_by='jobs.workload_id') -%}
            jobs.workload_id
        {%- endcall %}, 'none') as detail
    from periods  -- noqa: enable=LT02
    left join jobs
        on
            jobs.ended_at < jobs.started_at
            and periods.period_start_at <= jobs.started_at
            and periods.period_end_at > jobs.started_at
    group by periods.period
),

check_orphans as (
    select
        periods.period,
        'no_orphan_allocations' as check_name,
        coalesce(sum(segments.gpu_hours), 0) as observed_value,
        cast(0 as double) as limit_value,
        'gpu_hours on nodes missing from the inventory' as unit,
        coalesce(string_agg(distinct segments.workload_id || ' on ' || coalesce(segments.node_name, '?'), ', '), 'none')
            as detail
    from periods
    left join segments
        on periods.period = segments.period and segments.is_orphan
    group by periods.period
),

check_weights as (
    select
        periods.period,
        'partition_weight_coverage' as check_name,
        coalesce(sum(segments.gpu_hours), 0) as observed_value,
        cast(0 as double) as limit_value,
        'gpu_hours of shared profiles without an approved capacity fraction' as unit,
        coalesce(
            string_agg(distinct segments.gpu_model || ' ' || segments.profile, ', '),
            'every shared profile has an approved weight'
        ) as detail
    from periods
    left join segments
        on periods.period = segments.period and segments.is_missing_weight
    group by periods.period
),

check_productive_work as (
    select
        periods.period,
        'productive_work_reconciles' as check_name,
        cast(count(case when endpoint_reconciliation.is_mismatch then 1 end) as double) as observed_value,
        cast(0 as double) as limit_value,
        'gateway vs model-server measures beyond productive_work_tolerance_pct' as unit,
        -- noqa: disable=LT02
        coalesce({% call gpuledger.string_agg(
            "'; '", order_by='endpoint_reconciliation.model_name, endpoint_reconciliation.measure'
        ) -%}
            case
                when endpoint_reconciliation.status != 'match'
                    then
                        endpoint_reconciliation.model_name || ' ' || endpoint_reconciliation.measure
                        || ': gateway '
                        || coalesce(cast(endpoint_reconciliation.gateway_value as {{ dbt.type_string() }}), '-')
                        || ' vs server '
                        || coalesce(cast(endpoint_reconciliation.server_value as {{ dbt.type_string() }}), '-')
                        || ' (' || endpoint_reconciliation.status || ')'
            end
        {%- endcall %}, 'gateway and model servers agree') as detail,
        -- noqa: enable=LT02
        count(case when endpoint_reconciliation.status in ('match', 'mismatch') then 1 end) as compared_count
    from periods
    left join endpoint_reconciliation
        on periods.period = endpoint_reconciliation.period
    group by periods.period
),

check_unserved as (
    select
        periods.period,
        'no_success_without_workload' as check_name,
        cast(count(case when unserved.unserved_reason = 'no_allocation_at_the_time' then 1 end) as double)
            as observed_value,
        cast(0 as double) as limit_value,
        'successful requests no GPU allocation of their endpoint served' as unit,
        -- noqa: disable=LT02
        coalesce({% call gpuledger.string_agg("', '", order_by='unserved.request_id') -%}
            unserved.endpoint_id || ' ' || unserved.request_id || ' (' || unserved.unserved_reason || ')'
        {%- endcall %}, 'every success had a serving allocation') as detail
    from periods  -- noqa: enable=LT02
    left join unserved
        on periods.period = unserved.period
    group by periods.period
),

check_device_conservation as (
    select
        periods.period,
        'allocation_within_device_capacity' as check_name,
        coalesce(sum(case
            when not conservation.is_declared_oversubscription then conservation.excess_gpu_hours
        end), 0) as observed_value,
        cast(0 as double) as limit_value,
        'gpu_hours allocated above a device or node capacity' as unit,
        -- noqa: disable=LT02
        coalesce({% call gpuledger.string_agg("'; '", order_by='conservation.interval_start_at') -%}
            case
                when not conservation.is_declared_oversubscription
                    then
                        conservation.scope_type || ' '
                        || coalesce(conservation.gpu_uuid, conservation.node_name) || ' '
                        || cast(conservation.interval_start_at as {{ dbt.type_string() }}) || '..'
                        || cast(conservation.interval_end_at as {{ dbt.type_string() }}) || ' +'
                        || cast(round(conservation.excess_gpu_equivalents, 6) as {{ dbt.type_string() }})
            end
        {%- endcall %}, 'every device and node within capacity at every instant') as detail
    from periods  -- noqa: enable=LT02
    left join conservation
        on periods.period = conservation.period
    group by periods.period
),

check_oversubscription as (
    select
        periods.period,
        'oversubscribed_timeslice' as check_name,
        coalesce(sum(case
            when conservation.is_declared_oversubscription then conservation.excess_gpu_hours
        end), 0) as observed_value,
        cast(null as double) as limit_value,
        'gpu_hours of declared time-slice oversubscription (reported, not a failure)' as unit,
        -- noqa: disable=LT02
        coalesce({% call gpuledger.string_agg("'; '", order_by='conservation.interval_start_at') -%}
            case
                when conservation.is_declared_oversubscription
                    then
                        conservation.node_name || ' '
                        || cast(conservation.interval_start_at as {{ dbt.type_string() }})
            end
        {%- endcall %}, 'none') as detail
    from periods  -- noqa: enable=LT02
    left join conservation
        on periods.period = conservation.period
    group by periods.period
),

check_inventory as (
    select
        periods.period,
        'inventory_matches_reported_devices' as check_name,
        cast(count(inventory_findings.gpu_uuid) as double) as observed_value,
        cast(0 as double) as limit_value,
        'GPUs reported in the period but missing from the inventory or on another node' as unit,
        coalesce(
            -- noqa: disable=LT02
            {% call gpuledger.string_agg("', '", order_by='inventory_findings.gpu_uuid') -%}
                inventory_findings.gpu_uuid || ' (' || inventory_findings.finding || ', reported on '
                || inventory_findings.reported_node_name || ')'
            {%- endcall %},
            -- noqa: enable=LT02
            'every reported GPU is in the approved inventory, on its node'
        ) as detail
    from periods
    left join inventory_findings
        on
            inventory_findings.finding in ('not_in_inventory', 'node_mismatch')
            and periods.period_end_at > inventory_findings.first_reported_at
            and periods.period_start_at <= inventory_findings.last_reported_at
    group by periods.period
),

numbered_ownership as (
    select
        *,
        row_number() over (
            partition by scope_type, scope_key order by valid_from_at, tenant_id
        ) as interval_number
    from ownership
),

overlapping_ownership as (
    select earlier.scope_type || ':' || earlier.scope_key as scope
    from numbered_ownership as earlier
    inner join numbered_ownership as later
        on
            earlier.scope_type = later.scope_type
            and earlier.scope_key = later.scope_key
            and earlier.interval_number < later.interval_number
            and earlier.valid_from_at < {{ gpuledger.open_end('later.valid_to_at') }}
            and later.valid_from_at < {{ gpuledger.open_end('earlier.valid_to_at') }}
),

check_ownership as (
    select
        periods.period,
        'ownership_intervals_disjoint' as check_name,
        cast(count(overlapping_ownership.scope) as double) as observed_value,
        cast(0 as double) as limit_value,
        'overlapping ownership intervals' as unit,
        coalesce(string_agg(overlapping_ownership.scope, ', '), 'none') as detail
    from periods
    left join overlapping_ownership
        on true
    group by periods.period
),

check_rates as (
    select
        periods.period,
        'rate_card_coverage' as check_name,
        cast(count(charges.charge_line_id) as double) as observed_value,
        cast(0 as double) as limit_value,
        'charge lines without a rate' as unit,
        coalesce(string_agg(
            charges.tenant_id || ' ' || charges.charge_component || ' ' || charges.gpu_class, ', '
        ), 'every usage line priced') as detail
    from periods
    left join charges
        on
            periods.period = charges.period
            and charges.unit_price is null
            and charges.charge_component in (
                'allocated_gpu_hours', 'guaranteed_capacity', 'burst_usage', 'shared_endpoint',
                'shared_endpoint_hosting'
            )
    group by periods.period
),

check_quarantine as (
    select
        periods.period,
        'quarantined_records' as check_name,
        cast(count(quarantine.batch_id) as double) as observed_value,
        cast(null as double) as limit_value,
        'records in quarantine (all batches)' as unit,
        'see gpuledger report --quarantine; every rejected record keeps file, line and reason'
            as detail
    from periods
    left join quarantine
        on true
    group by periods.period
),

measured as (
    {#- each check CTE with the rule that turns its figure into a status -#}
    {%- set within_tolerance = "case when observed_value <= 0.000001 then 'pass' else 'fail' end" %}
    {%- set within_limit = "case when observed_value <= limit_value then 'pass' else 'fail' end" %}
    {%- set none_found = "case when observed_value = 0 then 'pass' else 'fail' end" %}
    {%- set checks = [
        ('check_capacity_identity', within_tolerance, true),
        ('check_within_capacity', within_tolerance, true),
        ('check_reservations', within_tolerance, true),
        ('check_unattributed_hours', within_limit, true),
        ('check_unattributed_cost', within_limit, true),
        ('check_cost_recovery', "case when pool_count = 0 then 'not_applicable' when observed_value <= limit_value then 'pass' else 'fail' end", true),
        ('check_negative_intervals', none_found, true),
        ('check_orphans', within_tolerance, true),
        ('check_weights', within_tolerance, true),
        ('check_inventory', none_found, true),
        ('check_productive_work', "case when compared_count = 0 then 'not_applicable' when observed_value = 0 then 'pass' else 'fail' end", true),
        ('check_unserved', none_found, true),
        ('check_ownership', none_found, true),
        ('check_rates', none_found, true),
        ('check_quarantine', "'info'", false),
        ('check_device_conservation', within_tolerance, true),
        ('check_oversubscription', "'info'", false),
    ] %}
    {%- for cte, status_rule, is_blocking in checks %}
    select
        period,
        check_name,
        observed_value,
        limit_value,
        unit,
        detail,
        {{ is_blocking }} as is_blocking,
        {{ status_rule }} as status
    from {{ cte }}
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}
),

final as (
    select
        period,
        check_name,
        status,
        is_blocking,
        cast(round(observed_value, 6) as decimal(24, 6)) as observed_value,
        cast(round(limit_value, 6) as decimal(24, 6)) as limit_value,
        unit,
        detail
    from measured
)

select * from final
