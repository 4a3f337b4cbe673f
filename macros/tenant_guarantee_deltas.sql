{#- The event deltas of each reserving tenant's guarantee in a GPU class: its allocation
    segments starting and ending (GPU-equivalents) and its reservations starting and ending
    (reserved GPUs), as rows (tenant_id, gpu_class, event_at, allocated_delta,
    reserved_delta). The model must have CTEs `segments` (int_allocation_segments_split),
    `reservations` (stg_policy__reservations) and `tenant_classes` (the reserving tenants'
    classes). Shared by int_capacity_idle_timeline and int_unused_guarantee. -#}
{% macro tenant_guarantee_deltas() -%}
    {%- for edge, sign in [('start', ''), ('end', '-')] %}
    select
        segments.tenant_id,
        segments.gpu_class,
        segments.segment_{{ edge }}_at as event_at,
        {{ sign }}cast(segments.gpu_equivalents as double) as allocated_delta,
        0.0 as reserved_delta
    from segments
    inner join tenant_classes
        on segments.tenant_id = tenant_classes.tenant_id and segments.gpu_class = tenant_classes.gpu_class
    union all
    {%- endfor %}
    select
        tenant_id,
        gpu_class,
        valid_from_at as event_at,
        0.0 as allocated_delta,
        cast(reserved_gpus as double) as reserved_delta
    from reservations
    union all
    select
        tenant_id,
        gpu_class,
        valid_to_at as event_at,
        0.0 as allocated_delta,
        -cast(reserved_gpus as double) as reserved_delta
    from reservations
    where valid_to_at is not null
{%- endmacro %}
