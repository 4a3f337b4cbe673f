{#- One row per contiguous presence of a vGPU instance on a physical GPU (the hypervisor's
    assignment of a vGPU profile to a VM), built from host polls.

    Any poll that lists an instance is a sighting of it. Only a *complete* poll of the GPU (no
    error, NVML listed the active vGPUs, and every listed vGPU landed with its UUID) can say
    an instance was absent. Sightings of one (GPU, vGPU UUID, VM, type) belong to one interval
    until a complete poll without the instance comes between them, or two sightings are more
    than two poll intervals apart (a telemetry gap is not claimed).
    An interval is [first_seen_at, end): end is the first complete poll after the last
    sighting, but no later than that sighting's next_poll_due_at (last_seen_at + interval).
    When no complete poll followed (still present, or the host went dark) the interval is
    open and provisionally ends at last_seen_at + interval. -#}
with

samples as (
    select * from {{ ref('stg_vgpu__samples') }}
),

hosts as (
    select * from {{ source('vgpu', 'vgpu_hosts') }}
),

answered_polls as (
    {{ gpuledger.landed_records('hosts', where='error is null and active_vgpu_count is not null') }}
),

host_polls as (
    select
        gpu_uuid,
        sampled_at,
        max(active_vgpu_count) as active_vgpu_count
    from answered_polls
    group by gpu_uuid, sampled_at
),

seen_per_poll as (
    select
        gpu_uuid,
        sampled_at,
        count(*) as vgpu_count
    from samples
    group by gpu_uuid, sampled_at
),

complete_polls as (
    select
        host_polls.gpu_uuid,
        host_polls.sampled_at,
        1 as is_complete
    from host_polls
    left join seen_per_poll
        on
            host_polls.gpu_uuid = seen_per_poll.gpu_uuid
            and host_polls.sampled_at = seen_per_poll.sampled_at
    where host_polls.active_vgpu_count = coalesce(seen_per_poll.vgpu_count, 0)
),

poll_moments as (
    select
        gpu_uuid,
        sampled_at,
        is_complete
    from complete_polls
    union all
    select
        gpu_uuid,
        sampled_at,
        0 as is_complete
    from seen_per_poll
),

timeline as (
    select
        gpu_uuid,
        sampled_at,
        max(is_complete) as is_complete
    from poll_moments
    group by gpu_uuid, sampled_at
),

timeline_marks as (
    select
        gpu_uuid,
        sampled_at,
        is_complete,
        sum(is_complete) over (
            partition by gpu_uuid
            order by sampled_at
            rows between unbounded preceding and current row
        ) as complete_polls_through,
        min(case when is_complete = 1 then sampled_at end) over (
            partition by gpu_uuid
            order by sampled_at
            rows between 1 following and unbounded following
        ) as next_complete_poll_at
    from timeline
),

sightings as (
    select
        samples.*,
        timeline_marks.is_complete,
        timeline_marks.complete_polls_through,
        timeline_marks.next_complete_poll_at,
        lag(timeline_marks.complete_polls_through) over (
            partition by samples.gpu_uuid, samples.vgpu_uuid, samples.vm_id, samples.vgpu_type_name
            order by samples.sampled_at
        ) as previous_complete_polls_through,
        lag(samples.sampled_at) over (
            partition by samples.gpu_uuid, samples.vgpu_uuid, samples.vm_id, samples.vgpu_type_name
            order by samples.sampled_at
        ) as previous_sampled_at
    from samples
    inner join timeline_marks
        on
            samples.gpu_uuid = timeline_marks.gpu_uuid
            and samples.sampled_at = timeline_marks.sampled_at
),

flagged as (
    select
        *,
        case
            when previous_sampled_at is null then 1
            when complete_polls_through - previous_complete_polls_through - is_complete > 0 then 1
            when {{ seconds_between('previous_sampled_at', 'sampled_at') }} > 2 * interval_seconds
                then 1
            else 0
        end as starts_interval
    from sightings
),

numbered as (
    select
        *,
        sum(starts_interval) over (
            partition by gpu_uuid, vgpu_uuid, vm_id, vgpu_type_name
            order by sampled_at
            rows between unbounded preceding and current row
        ) as interval_number
    from flagged
),

last_sightings as (
    select
        *,
        min(sampled_at) over (
            partition by gpu_uuid, vgpu_uuid, vm_id, vgpu_type_name, interval_number
        ) as first_seen_at,
        count(*) over (
            partition by gpu_uuid, vgpu_uuid, vm_id, vgpu_type_name, interval_number
        ) as sighting_count,
        row_number() over (
            partition by gpu_uuid, vgpu_uuid, vm_id, vgpu_type_name, interval_number
            order by sampled_at desc
        ) as recency_rank
    from numbered
),

final as (
    select
        {{ surrogate_key(['gpu_uuid', 'vgpu_uuid', 'vm_id', 'vgpu_type_name', 'first_seen_at']) }}
            as assignment_id,
        node_name,
        gpu_uuid,
        gpu_model,
        vgpu_uuid,
        vgpu_instance_id,
        vm_id,
        vm_id_type,
        vgpu_type_name,
        vgpu_profile,
        first_seen_at,
        sampled_at as last_seen_at,
        sighting_count,
        interval_seconds,
        first_seen_at as assignment_start_at,
        case
            when next_complete_poll_at < next_poll_due_at then next_complete_poll_at
            else next_poll_due_at
        end as assignment_end_at,
        next_complete_poll_at is null as is_open
    from last_sightings
    where recency_rank = 1
)

select * from final
