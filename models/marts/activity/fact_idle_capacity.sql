{#- Every GPU-hour of physical capacity in one class, with who pays for it by default.

    Allocation side, per allocation segment (int_allocation_activity): allocated_active (covered
    time at or above idle_active_threshold; tenant), allocated_inactive (covered time below it,
    the guaranteed share; tenant, reported), borrowed_idle (covered time below it, the borrowed
    share; tenant), telemetry_unknown (allocated time no telemetry covered; suspense).
    Capacity side, per interval of the class timeline (int_capacity_idle_timeline), the free
    capacity in precedence order: reliability_reserve (policy), fragmentation_idle (platform),
    unused_guarantee (per tenant, int_unused_guarantee; tenant), platform_unallocated
    (platform); allocation beyond the GPUs in service is a negative capacity_difference
    (suspense). Physical capacity counts in-service time only, so nothing is unavailable here.
    Per period and class the rows add up to int_capacity_by_class.physical_gpu_hours
    (tests/dbt/assert_idle_classes_add_up_to_capacity.sql). Built by period
    (gpuledger.core.period_scope): every row is one segment's or one interval's. -#}
{{ config(**gpuledger.by_period_config()) }}
with

activity as (
    select * from {{ ref('int_allocation_activity') }}
    where {{ gpuledger.live_period('period') }}
),

timeline as (
    select * from {{ ref('int_capacity_idle_timeline') }}
    where {{ gpuledger.live_period('period') }}
),

unused_guarantee as (
    select * from {{ ref('int_unused_guarantee') }}
    where {{ gpuledger.live_period('period') }}
),

{#- (idle class, default payer, the GPU-hours column it takes) on each side -#}
{%- set allocation_classes = [
    ('allocated_active', 'tenant', 'in_use_gpu_hours'),
    ('allocated_inactive', 'tenant', 'allocated_inactive_gpu_hours'),
    ('borrowed_idle', 'tenant', 'borrowed_idle_gpu_hours'),
    ('telemetry_unknown', 'suspense', 'telemetry_unknown_gpu_hours')
] %}
{%- set capacity_classes = [
    ('reliability_reserve', 'policy', 'reliability_reserve_gpu_hours'),
    ('fragmentation_idle', 'platform', 'fragmentation_idle_gpu_hours'),
    ('platform_unallocated', 'platform', 'platform_unallocated_gpu_hours'),
    ('capacity_difference', 'suspense', 'capacity_difference_gpu_hours')
] %}

allocation_rows as (
    {%- for idle_class, default_payer, gpu_hours in allocation_classes %}
    select
        period,
        gpu_class,
        '{{ idle_class }}' as idle_class,
        '{{ default_payer }}' as default_payer,
        tenant_id,
        segment_id,
        allocation_id,
        activity_source,
        segment_start_at as interval_start_at,
        segment_end_at as interval_end_at,
        {{ gpu_hours }} as gpu_hours
    from activity
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}
),

capacity_rows as (
    {%- for idle_class, default_payer, gpu_hours in capacity_classes %}
    select
        period,
        gpu_class,
        '{{ idle_class }}' as idle_class,
        '{{ default_payer }}' as default_payer,
        interval_start_at,
        interval_end_at,
        {{ gpu_hours }} as gpu_hours
    from timeline
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}
),

unioned as (
    select * from allocation_rows
    union all
    select
        period,
        gpu_class,
        idle_class,
        default_payer,
        cast(null as {{ dbt.type_string() }}) as tenant_id,
        cast(null as {{ dbt.type_string() }}) as segment_id,
        cast(null as {{ dbt.type_string() }}) as allocation_id,
        cast(null as {{ dbt.type_string() }}) as activity_source,
        interval_start_at,
        interval_end_at,
        gpu_hours
    from capacity_rows
    union all
    select
        period,
        gpu_class,
        'unused_guarantee' as idle_class,
        'tenant' as default_payer,
        tenant_id,
        cast(null as {{ dbt.type_string() }}) as segment_id,
        cast(null as {{ dbt.type_string() }}) as allocation_id,
        cast(null as {{ dbt.type_string() }}) as activity_source,
        interval_start_at,
        interval_end_at,
        unused_guarantee_gpu_hours as gpu_hours
    from unused_guarantee
),

final as (
    select
        cast({{ surrogate_key([
            'idle_class', 'gpu_class', 'interval_start_at', "coalesce(tenant_id, '')",
            "coalesce(segment_id, '')"
        ]) }} as {{ dbt.type_string() }}) as idle_capacity_id,
        cast(period as {{ dbt.type_string() }}) as period,
        cast(gpu_class as {{ dbt.type_string() }}) as gpu_class,
        cast(idle_class as {{ dbt.type_string() }}) as idle_class,
        cast(default_payer as {{ dbt.type_string() }}) as default_payer,
        cast(tenant_id as {{ dbt.type_string() }}) as tenant_id,
        cast(segment_id as {{ dbt.type_string() }}) as segment_id,
        cast(allocation_id as {{ dbt.type_string() }}) as allocation_id,
        cast(activity_source as {{ dbt.type_string() }}) as activity_source,
        cast(interval_start_at as timestamp) as interval_start_at,
        cast(interval_end_at as timestamp) as interval_end_at,
        cast(round(gpu_hours, 6) as decimal(18, 6)) as gpu_hours
    from unioned
    where round(gpu_hours, 6) != 0
)

select * from final
