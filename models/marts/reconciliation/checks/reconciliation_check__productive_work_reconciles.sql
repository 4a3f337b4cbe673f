{#- Productive work reconciles per period: no measure of a served model where the gateway
    log and the model servers disagree beyond productive_work_tolerance_pct (the mismatch
    rows of fact_endpoint_reconciliation). Not applicable to a period where no measure had
    evidence on both sides. -#}
with

periods as (
    select * from {{ ref('int_periods') }}
),

endpoint_reconciliation as (
    select * from {{ ref('fact_endpoint_reconciliation') }}
),

measured as (
    select
        periods.period,
        cast(count(case when endpoint_reconciliation.is_mismatch then 1 end) as double) as observed_value,
        cast(0 as double) as limit_value,
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

final as (
    {{ gpuledger.reconciliation_check(
        'productive_work_reconciles', 'measured',
        "case when compared_count = 0 then 'not_applicable' else "
        ~ gpuledger.reconciliation_status('none_found') ~ " end"
    ) }}
)

select * from final
