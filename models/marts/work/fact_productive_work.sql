{#- The productive-work ledger per period and tenant: one row
    per period, tenant, unit kind and source (and endpoint for gateway units).
    - job (slurm, kubernetes): GPU workloads that ended in the period, by the tenant owning
      their scope when they ended; successful = failure class success (int_workload_outcomes),
      unsuccessful = every other end (failed, preempted, timed out, cancelled, unknown).
    - request, input_token, output_token (gateway): requests that finished in the period by
      the caller tenant, and their tokens; successful = outcome success.
    Model-server counters have no tenant: they reconcile the gateway per endpoint in
    fact_endpoint_reconciliation. -#}
with

outcomes as (
    select * from {{ ref('int_workload_outcomes') }}
),

requests as (
    select * from {{ ref('int_gateway_requests') }}
),

jobs as (
    select
        period,
        tenant_id,
        'job' as unit_kind,
        source_system,
        cast(null as {{ dbt.type_string() }}) as endpoint_id,
        sum(case when failure_class = 'success' then 1 else 0 end) as successful_units,
        sum(case when failure_class != 'success' then 1 else 0 end) as unsuccessful_units
    from outcomes
    where is_ended
    group by period, tenant_id, source_system
),

request_units as (
    {#- the gateway units: (unit kind, what a request counts for in it) -#}
    {%- set request_unit_kinds = [
        ('request', '1'), ('input_token', 'input_tokens'), ('output_token', 'output_tokens')
    ] %}
    {%- for unit_kind, units in request_unit_kinds %}
    select
        period,
        tenant_id,
        '{{ unit_kind }}' as unit_kind,
        'gateway' as source_system,
        endpoint_id,
        sum(case when is_success then {{ units }} else 0 end) as successful_units,
        sum(case when is_success then 0 else {{ units }} end) as unsuccessful_units
    from requests
    group by period, tenant_id, endpoint_id
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}
),

unioned as (
    select * from jobs
    union all
    select * from request_units
),

final as (
    select
        {{ surrogate_key([
            'period', 'tenant_id', 'unit_kind', 'source_system', "coalesce(endpoint_id, '')"
        ]) }} as productive_work_id,
        period,
        tenant_id,
        unit_kind,
        source_system,
        endpoint_id,
        cast(successful_units as bigint) as successful_units,
        cast(unsuccessful_units as bigint) as unsuccessful_units,
        cast(successful_units + unsuccessful_units as bigint) as total_units
    from unioned
)

select * from final
