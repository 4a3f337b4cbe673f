{#- Reservations within capacity per period: it fails by the reserved GPU-hours above the
    GPUs in service, over every interval of the class timeline where more GPUs of a class
    were reserved than were in service. -#}
with

excess as (
    select * from {{ ref('int_class_capacity_excess') }}
),

findings as (
    select
        period,
        gpu_class,
        excess_gpu_hours as observed_value,
        excess_summary || ' GPUs reserved above the GPUs in service' as finding
    from excess
    where measure = 'reserved'
),

measured as (
    {{ gpuledger.reconciliation_measure(
        'findings', 'reservations fit the approved inventory at every instant', order_by='gpu_class',
        delimiter='; '
    ) }}
),

final as (
    {{ gpuledger.reconciliation_check(
        'reservations_within_capacity', 'measured', gpuledger.reconciliation_status('within_tolerance')
    ) }}
)

select * from final
