{#- Oversubscribed time-slice per period: the GPU-hours of declared time-slice
    oversubscription (int_device_conservation), reported, never a failure. -#}
with

conservation as (
    select * from {{ ref('int_device_conservation') }}
),

findings as (
    select
        period,
        interval_start_at,
        excess_gpu_hours as observed_value,
        node_name || ' ' || cast(interval_start_at as {{ dbt.type_string() }}) as finding
    from conservation
    where is_declared_oversubscription
),

measured as (
    {{ gpuledger.reconciliation_measure(
        'findings', 'none', order_by='interval_start_at', limit_value=none, delimiter='; '
    ) }}
),

final as (
    {{ gpuledger.reconciliation_check(
        'oversubscribed_timeslice', 'measured', "'info'"
    ) }}
)

select * from final
