{#- One row per period and tenant: the four ledgers side by side, never collapsed —
    reserved (entitlement), allocated split into guaranteed and borrowed (allocation),
    active-equivalent and idle-allocated (activity; null until telemetry is landed),
    successful work — then the total charge and cost per successful unit. -#}
with

charges as (
    select * from {{ ref('fact_chargeback') }}
),

usage as (
    select * from {{ ref('int_usage_by_tenant') }}
),

reservation_periods as (
    select * from {{ ref('int_reservation_periods') }}
),

productive_work as (
    select * from {{ ref('fact_productive_work') }}
),

activity as (
    select * from {{ ref('int_allocation_activity') }}
),

activity_by_tenant as (
    {#- the activity ledger; null for a tenant no telemetry covered at all (unknown is not 0) -#}
    select
        period,
        tenant_id,
        {{ gpuledger.exact_sum('active_equivalent_gpu_hours') }} as active_equivalent_gpu_hours,
        {{ gpuledger.exact_sum('inactive_gpu_hours') }} as idle_allocated_gpu_hours,
        {{ gpuledger.exact_sum('telemetry_unknown_gpu_hours') }} as telemetry_unknown_gpu_hours,
        max(case when activity_source != 'none' then 1 else 0 end) as has_telemetry
    from activity
    group by period, tenant_id
),

tenants as (
    select * from {{ ref('dim_tenant') }}
),

reserved as (
    select
        period,
        tenant_id,
        {{ gpuledger.exact_sum('reserved_gpu_hours') }} as reserved_gpu_hours
    from reservation_periods
    group by period, tenant_id
),

allocated as (
    select
        period,
        tenant_id,
        {{ gpuledger.exact_sum('allocated_gpu_hours') }} as allocated_gpu_hours,
        {{ gpuledger.exact_sum('guaranteed_gpu_hours') }} as guaranteed_gpu_hours,
        {{ gpuledger.exact_sum('borrowed_gpu_hours') }} as borrowed_gpu_hours
    from usage
    group by period, tenant_id
),

segments as (
    select * from {{ ref('int_allocation_segments') }}
),

{#- allocation_mix's columns: (column, segment attribute, value) -#}
{%- set allocation_mix_columns = [
    ('high_confidence_gpu_hours', 'confidence', 'high'),
    ('medium_confidence_gpu_hours', 'confidence', 'medium'),
    ('modeled_gpu_hours', 'confidence', 'modeled'),
    ('unattributed_gpu_hours', 'confidence', 'unattributed'),
    ('whole_gpu_hours', 'sharing_mode', 'whole'),
    ('mig_gpu_hours', 'sharing_mode', 'mig'),
    ('vgpu_gpu_hours', 'sharing_mode', 'vgpu'),
    ('timeslice_gpu_hours', 'sharing_mode', 'timeslice'),
    ('process_gpu_hours', 'sharing_mode', 'process')
] %}
{#- job_outcomes' columns: (column, unit kind, fact_productive_work measure) -#}
{%- set outcome_columns = [
    ('successful_jobs', 'job', 'successful_units'),
    ('unsuccessful_jobs', 'job', 'unsuccessful_units'),
    ('requests', 'request', 'successful_units'),
    ('input_tokens', 'input_token', 'successful_units'),
    ('output_tokens', 'output_token', 'successful_units')
] %}

allocation_mix as (
    {#- the allocation ledger by sharing mode and by confidence, so a modeled time-slice
        share is never read as a measured one -#}
    select
        {%- for column, attribute, value in allocation_mix_columns %}
        {{ gpuledger.exact_sum("case when " ~ attribute ~ " = '" ~ value ~ "' then gpu_hours else 0 end") }}
            as {{ column }},
        {%- endfor %}
        period,
        tenant_id
    from segments
    group by period, tenant_id
),

job_outcomes as (
    {#- successful work: jobs and pods by end state, gateway requests and tokens -#}
    select
        {%- for column, kind, measure in outcome_columns %}
        sum(case when unit_kind = '{{ kind }}' then {{ measure }} else 0 end) as {{ column }},
        {%- endfor %}
        period,
        tenant_id
    from productive_work
    group by period, tenant_id
),

charged as (
    select
        period,
        tenant_id,
        sum(amount) as total_charge,
        sum(case when {{ gpuledger.is_unpriced('unit_price', 'charge_component') }} then 1 else 0 end)
            as unpriced_lines,
        min(currency) as currency,
        max(status) as status
    from charges
    group by period, tenant_id
),

keys as (
    {%- for ledger in ['reserved', 'allocated', 'job_outcomes', 'charged'] %}
    select
        period,
        tenant_id
    from {{ ledger }}
    {% if not loop.last %}union{% endif %}
    {%- endfor %}
),

final as (
    select
        keys.period,
        keys.tenant_id,
        tenants.tenant_name,
        cast(round(coalesce(reserved.reserved_gpu_hours, 0), 6) as decimal(18, 6))
            as reserved_gpu_hours,
        cast(round(coalesce(allocated.allocated_gpu_hours, 0), 6) as decimal(18, 6))
            as allocated_gpu_hours,
        cast(round(coalesce(allocated.guaranteed_gpu_hours, 0), 6) as decimal(18, 6))
            as guaranteed_gpu_hours,
        cast(round(coalesce(allocated.borrowed_gpu_hours, 0), 6) as decimal(18, 6))
            as borrowed_gpu_hours,
        case
            when activity_by_tenant.has_telemetry = 1
                then cast(round(activity_by_tenant.active_equivalent_gpu_hours, 6) as decimal(18, 6))
        end as active_equivalent_gpu_hours,
        case
            when activity_by_tenant.has_telemetry = 1
                then cast(round(activity_by_tenant.idle_allocated_gpu_hours, 6) as decimal(18, 6))
        end as idle_allocated_gpu_hours,
        cast(round(coalesce(activity_by_tenant.telemetry_unknown_gpu_hours, 0), 6) as decimal(18, 6))
            as telemetry_unknown_gpu_hours,
        {%- for column, attribute, value in allocation_mix_columns %}
        cast(round(coalesce(allocation_mix.{{ column }}, 0), 6) as decimal(18, 6)) as {{ column }},
        {%- endfor %}
        case
            when reserved.reserved_gpu_hours > 0
                then cast(round(
                    coalesce(allocated.allocated_gpu_hours, 0) / reserved.reserved_gpu_hours, 4
                ) as decimal(18, 4))
        end as reservation_occupancy_ratio,
        {%- for column, kind, measure in outcome_columns %}
        cast(coalesce(job_outcomes.{{ column }}, 0) as bigint) as {{ column }},
        {%- endfor %}
        cast(coalesce(charged.total_charge, 0) as decimal(18, 2)) as total_charge,
        cast(coalesce(charged.unpriced_lines, 0) as bigint) as unpriced_lines,
        charged.currency,
        case
            when job_outcomes.successful_jobs > 0
                then cast(
                    round(charged.total_charge / job_outcomes.successful_jobs, 2)
                    as decimal(18, 2)
                )
        end as cost_per_successful_unit,
        coalesce(charged.status, 'provisional') as status
    from keys
    left join tenants
        on keys.tenant_id = tenants.tenant_id
    {%- for ledger in ['reserved', 'allocated', 'job_outcomes', 'charged', 'activity_by_tenant', 'allocation_mix'] %}
    left join {{ ledger }}
        on keys.period = {{ ledger }}.period and keys.tenant_id = {{ ledger }}.tenant_id
    {%- endfor %}
)

select * from final
