{#- No success without a workload per period: every successful request was served by a GPU
    allocation of its endpoint at the time. Every unserved success of int_unserved_successes
    is listed; those with reason no_allocation_at_the_time count. -#}
with

unserved as (
    select * from {{ ref('int_unserved_successes') }}
),

findings as (
    select
        period,
        request_id,
        case when unserved_reason = 'no_allocation_at_the_time' then 1 else 0 end as observed_value,
        endpoint_id || ' ' || request_id || ' (' || unserved_reason || ')' as finding
    from unserved
),

measured as (
    {{ gpuledger.reconciliation_measure('findings', 'every success had a serving allocation', order_by='request_id') }}
),

final as (
    {{ gpuledger.reconciliation_check(
        'no_success_without_workload', 'measured', gpuledger.reconciliation_status('none_found')
    ) }}
)

select * from final
