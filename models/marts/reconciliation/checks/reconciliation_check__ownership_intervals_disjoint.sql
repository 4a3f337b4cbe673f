{#- Ownership intervals disjoint: no two ownership.csv intervals of one scope overlap. The
    policy is not per period: every period lists every overlapping pair, by its scope. -#}
with

periods as (
    select * from {{ ref('int_periods') }}
),

overlapping as (
    select * from {{ ref('int_ownership_overlaps') }}
),

findings as (
    select
        periods.period,
        1 as observed_value,
        overlapping.scope_type || ':' || overlapping.scope_key as finding
    from periods
    cross join overlapping
),

measured as (
    {{ gpuledger.reconciliation_measure('findings', 'none', order_by='finding') }}
),

final as (
    {{ gpuledger.reconciliation_check(
        'ownership_intervals_disjoint', 'measured', gpuledger.reconciliation_status('none_found')
    ) }}
)

select * from final
