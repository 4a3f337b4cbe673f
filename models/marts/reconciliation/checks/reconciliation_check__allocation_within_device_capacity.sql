{#- Allocation within device capacity per period: no device or node allocated above its
    capacity at any instant (int_device_conservation), declared time-slice oversubscription
    aside (oversubscribed_timeslice reports it). -#}
with

conservation as (
    select * from {{ ref('int_device_conservation') }}
),

findings as (
    select
        period,
        interval_start_at,
        excess_gpu_hours as observed_value,
        scope_type || ' ' || coalesce(gpu_uuid, node_name) || ' '
        || cast(interval_start_at as {{ dbt.type_string() }}) || '..'
        || cast(interval_end_at as {{ dbt.type_string() }}) || ' +'
        || cast(round(excess_gpu_equivalents, 6) as {{ dbt.type_string() }}) as finding
    from conservation
    where not is_declared_oversubscription
),

measured as (
    {{ gpuledger.reconciliation_measure(
        'findings', 'every device and node within capacity at every instant', order_by='interval_start_at',
        delimiter='; '
    ) }}
),

final as (
    {{ gpuledger.reconciliation_check(
        'allocation_within_device_capacity', 'measured', gpuledger.reconciliation_status('within_tolerance')
    ) }}
)

select * from final
