{#- Process-mapped shares of time-sliced GPUs (README "Charging": measured
    share of process samples, medium confidence).

    A time-sliced replica is modeled at 1 / replicas (int_kubernetes_allocations). When the
    NVML sampler saw the pod's processes, and all of them on one physical GPU, the replica is
    mapped to that GPU and its allocation is re-cut round by round on the GPU's clean
    sampling rounds [sampled_at, next sample or + interval):
    - a round with compute processes: each pod holds its share of the round's processes
      (its processes / all processes on the GPU), sharing mode `process`, confidence medium;
      a pod with no process in such a round holds nothing then (the others used the GPU);
    - a round without processes, an errored round, and the time no round covers: the modeled
      1 / replicas, sharing mode `timeslice`, confidence modeled (nobody's use was measured,
      the replica was still held).
    The processes on a mapped GPU that belong to no mapped replica (a cgroup that could not be
    read, a process outside any pod, a pod not holding a replica then) hold the rest of the
    round as an unattributed `nvml_device` scope: suspense, never a guessed tenant.
    Consecutive pieces with the same mode and fraction are merged: a steady GPU is a few rows.
    On a mapped GPU every round's shares add up to 1 (to 6 decimals); conservation is checked
    per device in int_device_conservation.

    Not mapped (stay modeled): replicas whose count nobody declared, replicas of more than one
    device (their processes do not say which share ran where), MIG devices, and every replica
    when the policy setting `timeslice_attribution` is `modeled`.

    One row per piece, in int_allocations' shape; `source_allocation_id` is the pod
    allocation a piece belongs to (whose pod UID and key it carries), `gpu_uuid` the GPU it
    was measured on. -#}
with

allocations as (
    select * from {{ ref('int_kubernetes_allocations') }}
),

samples as (
    select * from {{ ref('stg_nvml__samples') }}
),

processes as (
    select * from {{ ref('stg_nvml__processes') }}
),

settings as (
    select * from {{ ref('stg_policy__settings') }}
),

replicas as (
    select allocations.*
    from allocations
    cross join settings
    where
        allocations.sharing_mode = 'timeslice'
        and allocations.device_count = 1
        and not allocations.is_missing_weight
        and coalesce(settings.timeslice_attribution, 'process') = 'process'
),

replica_processes as (
    {#- the pod's compute processes on its node while it held the replica -#}
    select
        replicas.allocation_id,
        processes.device_uuid,
        processes.sampled_at
    from replicas
    inner join processes
        on
            processes.owner_kind = 'k8s_pod'
            and replicas.pod_uid = processes.pod_uid
            and replicas.node_name = processes.node_name
            and processes.gpu_instance_id is null
            and replicas.allocation_start_at <= processes.sampled_at
            and replicas.allocation_end_at > processes.sampled_at
),

mapped as (
    select
        allocation_id,
        min(device_uuid) as device_uuid
    from replica_processes
    group by allocation_id
    having count(distinct device_uuid) = 1
),

own_processes as (
    select
        replica_processes.allocation_id,
        replica_processes.device_uuid,
        replica_processes.sampled_at,
        count(*) as process_count
    from replica_processes
    inner join mapped
        on
            replica_processes.allocation_id = mapped.allocation_id
            and replica_processes.device_uuid = mapped.device_uuid
    group by replica_processes.allocation_id, replica_processes.device_uuid, replica_processes.sampled_at
),

device_samples as (
    select
        device_uuid,
        gpu_uuid,
        sampled_at,
        has_error,
        least(
            {{ gpuledger.add_seconds('sampled_at', 'interval_seconds') }},
            coalesce(
                lead(sampled_at) over (partition by device_uuid order by sampled_at),
                {{ gpuledger.add_seconds('sampled_at', 'interval_seconds') }}
            )
        ) as round_end_at
    from samples
    where device_uuid in (select mapped.device_uuid from mapped)
),

round_processes as (
    select
        device_uuid,
        sampled_at,
        count(*) as process_count
    from processes
    where device_uuid in (select mapped.device_uuid from mapped)
    group by device_uuid, sampled_at
),

mapped_round_processes as (
    select
        device_uuid,
        sampled_at,
        sum(process_count) as process_count
    from own_processes
    group by device_uuid, sampled_at
),

rounds as (
    select
        device_samples.device_uuid,
        device_samples.gpu_uuid,
        device_samples.sampled_at as round_start_at,
        device_samples.round_end_at,
        coalesce(round_processes.process_count, 0) as process_count,
        coalesce(round_processes.process_count, 0)
        - coalesce(mapped_round_processes.process_count, 0) as unmapped_process_count
    from device_samples
    left join round_processes
        on
            device_samples.device_uuid = round_processes.device_uuid
            and device_samples.sampled_at = round_processes.sampled_at
    left join mapped_round_processes
        on
            device_samples.device_uuid = mapped_round_processes.device_uuid
            and device_samples.sampled_at = mapped_round_processes.sampled_at
    where not device_samples.has_error and device_samples.round_end_at > device_samples.sampled_at
),

replica_rounds as (
    select
        mapped.allocation_id as piece_key,
        greatest(rounds.round_start_at, replicas.allocation_start_at) as piece_start_at,
        least(rounds.round_end_at, replicas.allocation_end_at) as piece_end_at,
        case when rounds.process_count = 0 then 'timeslice' else 'process' end as sharing_mode,
        cast(case
            when rounds.process_count = 0 then replicas.capacity_fraction
            else cast(coalesce(own_processes.process_count, 0) as double) / rounds.process_count
        end as decimal(18, 6)) as piece_fraction,
        replicas.allocation_start_at,
        replicas.allocation_end_at,
        replicas.capacity_fraction
    from mapped
    inner join replicas
        on mapped.allocation_id = replicas.allocation_id
    inner join rounds
        on
            mapped.device_uuid = rounds.device_uuid
            and replicas.allocation_end_at > rounds.round_start_at
            and replicas.allocation_start_at < rounds.round_end_at
    left join own_processes
        on
            mapped.allocation_id = own_processes.allocation_id
            and rounds.round_start_at = own_processes.sampled_at
),

sequenced as (
    select
        *,
        lag(piece_end_at) over (partition by piece_key order by piece_start_at) as previous_end_at,
        row_number() over (partition by piece_key order by piece_start_at desc) as reverse_rank
    from replica_rounds
),

uncovered as (
    {#- before the first round, between rounds, after the last: modeled -#}
    select
        piece_key,
        coalesce(previous_end_at, allocation_start_at) as piece_start_at,
        piece_start_at as piece_end_at,
        'timeslice' as sharing_mode,
        capacity_fraction as piece_fraction
    from sequenced
    where coalesce(previous_end_at, allocation_start_at) < piece_start_at
    union all
    select
        piece_key,
        piece_end_at as piece_start_at,
        allocation_end_at as piece_end_at,
        'timeslice' as sharing_mode,
        capacity_fraction as piece_fraction
    from sequenced
    where reverse_rank = 1 and piece_end_at < allocation_end_at
),

unmapped_rounds as (
    {#- the rest of a round on a mapped GPU while it had a mapped replica: suspense -#}
    select distinct
        'nvml:' || rounds.device_uuid as piece_key,
        rounds.round_start_at as piece_start_at,
        rounds.round_end_at as piece_end_at,
        'process' as sharing_mode,
        cast(cast(rounds.unmapped_process_count as double) / rounds.process_count as decimal(18, 6))
            as piece_fraction
    from rounds
    inner join mapped
        on rounds.device_uuid = mapped.device_uuid
    inner join replicas
        on
            mapped.allocation_id = replicas.allocation_id
            and rounds.round_start_at < replicas.allocation_end_at
            and rounds.round_end_at > replicas.allocation_start_at
    where rounds.unmapped_process_count > 0
),

pieces as (
    select
        piece_key,
        piece_start_at,
        piece_end_at,
        sharing_mode,
        piece_fraction
    from replica_rounds
    union all
    select * from uncovered
    union all
    select * from unmapped_rounds
),

flagged as (
    select
        *,
        case
            when
                lag(sharing_mode) over (partition by piece_key order by piece_start_at) = sharing_mode
                and lag(piece_fraction) over (partition by piece_key order by piece_start_at)
                = piece_fraction
                and lag(piece_end_at) over (partition by piece_key order by piece_start_at)
                = piece_start_at
                then 0
            else 1
        end as is_new_island
    from pieces
),

numbered as (
    select
        *,
        sum(is_new_island) over (
            partition by piece_key order by piece_start_at rows unbounded preceding
        ) as island_number
    from flagged
),

islands as (
    select
        piece_key,
        island_number,
        min(sharing_mode) as sharing_mode,
        min(piece_fraction) as piece_fraction,
        min(piece_start_at) as piece_start_at,
        max(piece_end_at) as piece_end_at
    from numbered
    group by piece_key, island_number
),

device_nodes as (
    {#- a mapped GPU's node and class, from the replicas on it -#}
    select
        mapped.device_uuid,
        min(replicas.node_name) as node_name,
        min(replicas.gpu_model) as gpu_model,
        min(replicas.gpu_class) as gpu_class
    from mapped
    inner join replicas
        on mapped.allocation_id = replicas.allocation_id
    group by mapped.device_uuid
),

replica_pieces as (
    select
        replicas.allocation_id || '#' || cast(islands.piece_start_at as {{ dbt.type_string() }})
            as allocation_id,
        replicas.allocation_id as source_allocation_id,
        replicas.workload_id,
        replicas.source_system,
        replicas.scope_type,
        replicas.scope_key,
        replicas.node_name,
        mapped.device_uuid as gpu_uuid,
        replicas.gpu_model,
        replicas.gpu_class,
        islands.sharing_mode,
        case when islands.sharing_mode = 'process' then 'process-share' else replicas.profile end
            as profile,
        replicas.device_count,
        islands.piece_fraction as capacity_fraction,
        islands.piece_start_at as allocation_start_at,
        islands.piece_end_at as allocation_end_at,
        replicas.is_open and islands.piece_end_at = replicas.allocation_end_at as is_open,
        replicas.is_orphan,
        replicas.is_missing_weight,
        case when islands.sharing_mode = 'process' then 'medium' else 'modeled' end as confidence,
        replicas.pod_uid,
        replicas.pod_key
    from islands
    inner join replicas
        on islands.piece_key = replicas.allocation_id
    inner join mapped
        on replicas.allocation_id = mapped.allocation_id
),

unmapped_pieces as (
    select
        islands.piece_key || '#' || cast(islands.piece_start_at as {{ dbt.type_string() }})
            as allocation_id,
        islands.piece_key as source_allocation_id,
        islands.piece_key as workload_id,
        'nvml' as source_system,
        'nvml_device' as scope_type,
        device_nodes.device_uuid as scope_key,
        device_nodes.node_name,
        device_nodes.device_uuid as gpu_uuid,
        device_nodes.gpu_model,
        device_nodes.gpu_class,
        islands.sharing_mode,
        'process-unmapped' as profile,
        1 as device_count,
        islands.piece_fraction as capacity_fraction,
        islands.piece_start_at as allocation_start_at,
        islands.piece_end_at as allocation_end_at,
        false as is_open,
        false as is_orphan,
        false as is_missing_weight,
        'unattributed' as confidence,
        cast(null as {{ dbt.type_string() }}) as pod_uid,
        cast(null as {{ dbt.type_string() }}) as pod_key
    from islands
    inner join device_nodes
        on islands.piece_key = 'nvml:' || device_nodes.device_uuid
),

final as (
    select * from replica_pieces
    union all
    select * from unmapped_pieces
)

select
    *,
    cast(device_count * capacity_fraction as decimal(18, 6)) as gpu_equivalents
from final
where capacity_fraction > 0 and allocation_end_at > allocation_start_at
