{#- Cost recovery per period: every cost pool and the period's shared overheads are
    recovered by charge lines to the cent (limit 0.005 in total). Not applicable to a period
    without a pool or an overhead. -#}
with

recovery as (
    select * from {{ ref('int_cost_recovery') }}
),

findings as (
    select
        period,
        gpu_class,
        abs(total_cost - recovered_amount) as observed_value,
        gpu_class || ': pool ' || cast(total_cost as {{ dbt.type_string() }})
        || ' = lines ' || cast(recovered_amount as {{ dbt.type_string() }}) as finding
    from recovery
),

measured as (
    {{ gpuledger.reconciliation_measure(
        'findings', 'no cost pool or overhead for the period', order_by='gpu_class', limit_value=0.005,
        delimiter='; '
    ) }}
),

final as (
    {{ gpuledger.reconciliation_check(
        'cost_recovery', 'measured',
        "case when finding_count = 0 then 'not_applicable' else "
        ~ gpuledger.reconciliation_status('within_limit') ~ " end"
    ) }}
)

select * from final
