{#- Reserved GPU-hours: each reservation clipped to each period (and rate card version of its
    class, so a rate change mid-period prices each part at its own rate). -#}
with

reservations as (
    select * from {{ ref('stg_policy__reservations') }}
),

periods as (
    select * from {{ ref('int_periods') }}
),

clipped as (
    {{ gpuledger.clipped_to_periods(
        'reservations', 'valid_from_at', 'valid_to_at',
        ['tenant_id', 'gpu_class', 'service_class', 'reserved_gpus', 'valid_from_at', 'valid_to_at'],
        from_as='reserved_from_at', to_as='reserved_to_at'
    ) }}
),

final as (
    select
        *,
        reserved_gpus * {{ gpuledger.hours_between('reserved_from_at', 'reserved_to_at') }}
            as reserved_gpu_hours
    from clipped
)

select * from final
