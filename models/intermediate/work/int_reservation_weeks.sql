{#- Reserved and allocated GPU-hours per tenant, GPU class and ISO week (Monday 00:00 UTC to
    the next), for every reservation: each reservation and each allocation segment clipped
    to the week. Only complete weeks are kept: weeks that lie inside the span every landed
    allocation source covers (from the latest of the sources' first allocation start to the
    earliest of their last allocation end), so a week of partial evidence never reads as
    unused reservation. -#}
with

reservations as (
    select * from {{ ref('stg_policy__reservations') }}
),

segments as (
    select * from {{ ref('int_allocation_segments') }}
),

allocations as (
    select * from {{ ref('int_allocations') }}
),

source_spans as (
    select
        source_system,
        min(allocation_start_at) as first_at,
        max(allocation_end_at) as last_at
    from allocations
    group by source_system
),

evidence as (
    select
        max(first_at) as evidence_from_at,
        min(last_at) as evidence_to_at
    from source_spans
),

week_starts as (
    select {{ gpuledger.week_starts('evidence_from_at', 'evidence_to_at') }} as week_start_at
    from evidence
    where evidence_from_at is not null
),

weeks as (
    select
        cast(week_starts.week_start_at as timestamp) as week_start_at,
        cast(week_starts.week_start_at as timestamp) + interval 7 day as week_end_at
    from week_starts
    cross join evidence
    where
        cast(week_starts.week_start_at as timestamp) >= evidence.evidence_from_at
        and cast(week_starts.week_start_at as timestamp) + interval 7 day <= evidence.evidence_to_at
),

reserved as (
    select
        reservations.tenant_id,
        reservations.gpu_class,
        weeks.week_start_at,
        weeks.week_end_at,
        -- noqa: disable=LT02
        {% call gpuledger.string_agg(
            "', '", order_by="coalesce(reservations.service_class, '')", distinct=true
        ) -%}
            coalesce(reservations.service_class, '')
        {%- endcall %} as service_classes,
        -- noqa: enable=LT02
        {{ gpuledger.exact_sum(
            'reservations.reserved_gpus * ' ~ gpuledger.hours_between(
                'greatest(reservations.valid_from_at, weeks.week_start_at)',
                'least(' ~ gpuledger.open_end('reservations.valid_to_at') ~ ', weeks.week_end_at)'
            )
        ) }} as reserved_gpu_hours
    from reservations
    inner join weeks
        on
            reservations.valid_from_at < weeks.week_end_at
            and {{ gpuledger.open_end('reservations.valid_to_at') }} > weeks.week_start_at
    group by reservations.tenant_id, reservations.gpu_class, weeks.week_start_at, weeks.week_end_at
),

reserving as (
    select distinct
        tenant_id,
        gpu_class
    from reservations
),

allocated as (
    select
        segments.tenant_id,
        segments.gpu_class,
        weeks.week_start_at,
        {{ gpuledger.exact_sum(
            'segments.gpu_equivalents * ' ~ gpuledger.hours_between(
                'greatest(segments.segment_start_at, weeks.week_start_at)',
                'least(segments.segment_end_at, weeks.week_end_at)'
            )
        ) }} as allocated_gpu_hours
    from segments
    inner join weeks
        on
            segments.segment_start_at < weeks.week_end_at
            and segments.segment_end_at > weeks.week_start_at
    inner join reserving
        on
            segments.tenant_id = reserving.tenant_id
            and segments.gpu_class = reserving.gpu_class
    group by segments.tenant_id, segments.gpu_class, weeks.week_start_at
),

final as (
    select
        reserved.tenant_id,
        reserved.gpu_class,
        reserved.week_start_at,
        reserved.week_end_at,
        cast(extract(year from reserved.week_start_at + interval 3 day) as {{ dbt.type_string() }})
        || '-W'
        || lpad(cast(cast(
            floor((dayofyear(reserved.week_start_at + interval 3 day) - 1) / 7) + 1 as integer
        ) as {{ dbt.type_string() }}), 2, '0') as iso_week,
        reserved.service_classes,
        cast(reserved.reserved_gpu_hours as decimal(18, 6)) as reserved_gpu_hours,
        cast(coalesce(allocated.allocated_gpu_hours, 0) as decimal(18, 6)) as allocated_gpu_hours
    from reserved
    left join allocated
        on
            reserved.tenant_id = allocated.tenant_id
            and reserved.gpu_class = allocated.gpu_class
            and reserved.week_start_at = allocated.week_start_at
    where reserved.reserved_gpu_hours > 0
)

select * from final
