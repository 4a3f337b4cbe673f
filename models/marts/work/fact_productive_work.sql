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
    select
        period,
        tenant_id,
        'request' as unit_kind,
        'gateway' as source_system,
        endpoint_id,
        sum(case when is_success then 1 else 0 end) as successful_units,
        sum(case when is_success then 0 else 1 end) as unsuccessful_units
    from requests
    group by period, tenant_id, endpoint_id
    union all
    select
        period,
        tenant_id,
        'input_token' as unit_kind,
        'gateway' as source_system,
        endpoint_id,
        sum(case when is_success then input_tokens else 0 end) as successful_units,
        sum(case when is_success then 0 else input_tokens end) as unsuccessful_units
    from requests
    group by period, tenant_id, endpoint_id
    union all
    select
        period,
        tenant_id,
        'output_token' as unit_kind,
        'gateway' as source_system,
        endpoint_id,
        sum(case when is_success then output_tokens else 0 end) as successful_units,
        sum(case when is_success then 0 else output_tokens end) as unsuccessful_units
    from requests
    group by period, tenant_id, endpoint_id
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
