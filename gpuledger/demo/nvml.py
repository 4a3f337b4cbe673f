"""NVML sampler JSONL of two Slurm nodes and two Kubernetes nodes (whole GPUs, and the
time-sliced L4s, one process per pod holding a replica) for two days: per GPU a sample
every NVML_STEP and a process record per holder, whose cgroup names the job or pod."""

from __future__ import annotations

import collections
import datetime as dt
import random
from collections.abc import Sequence

from gpuledger.demo.common import Holding, Timeline, file_text, iso_us, json_line, ticks
from gpuledger.demo.constants import (
    A100_MODEL,
    GPUS_PER_NODE,
    H100_MODEL,
    KUBE_NODES,
    L4_MODEL,
    NVML_FROM,
    NVML_HOSTS,
    NVML_TO,
    POWER_WATTS,
    Window,
)
from gpuledger.demo.inventory import make_fleet
from gpuledger.demo.kubernetes.cluster import Slot
from gpuledger.demo.kubernetes.pods import KubePod
from gpuledger.demo.slurm.jobs import Job
from gpuledger.demo.slurm.sacct import run_end
from gpuledger.demo.slurm.scheduler import Placement

NVML_STEP = dt.timedelta(minutes=15)
IDLE_MEMORY_BYTES = 536870912
MEMORY_BYTES = {H100_MODEL: 85520809984, A100_MODEL: 85899345920, L4_MODEL: 24152899584}


def slurm_holdings(
    jobs: Sequence[Job], placements: dict[int, Placement], window: Window, host: str
) -> dict[int, Timeline]:
    """Which GPU of `host` each Slurm job held. sacct names nodes, not GPUs, so the node's
    jobs are replayed in time order (ends before starts at one instant) and each gets the
    lowest free GPU indices, as the gres plugin hands them out."""
    runs = []
    for job in jobs:
        placement = placements.get(job.raw_id)
        if placement is not None and host in placement.nodes:
            runs.append((placement.start, run_end(job, placement, window)[0], job))
    events = sorted(
        [(start, 1, n) for n, (start, _, _) in enumerate(runs)]
        + [(end, 0, n) for n, (_, end, _) in enumerate(runs) if end is not None]
    )
    free = list(range(GPUS_PER_NODE))
    held: dict[int, list[int]] = {}
    holdings: dict[int, list[Holding]] = {gpu: [] for gpu in range(GPUS_PER_NODE)}
    for _, kind, n in events:
        start, end, job = runs[n]
        if kind == 0:
            free = sorted(free + held.pop(n))
            continue
        per_node = job.gpus_per_node
        if per_node > len(free):
            raise AssertionError(f"{host}: job {job.job_id} finds {len(free)} free GPUs")
        held[n], free = free[:per_node], free[per_node:]
        for gpu in held[n]:
            holdings[gpu].append(Holding(start, end, job))
    return {gpu: Timeline.of(found) for gpu, found in holdings.items()}


def process_owner(owner: object, gpu: int) -> tuple[int, dict[str, object]]:
    """The pid of a holder's process on `gpu` and the owner its cgroup names."""
    if isinstance(owner, KubePod):
        pod_uid = owner.uid.replace("-", "_")
        return int(owner.uid[:4], 16) % 30000 + 2000 + gpu, {
            "cgroup_path": f"/kubepods.slice/kubepods-pod{pod_uid}.slice/"
            f"cri-containerd-{owner.container_id}.scope",
            "kind": "k8s_pod",
            "pod_uid": owner.uid,
            "container_id": owner.container_id,
            "slurm_job_id": None,
            "slurm_step_id": None,
            "error": None,
        }
    if not isinstance(owner, Job):
        raise TypeError(f"no process owner for {owner!r}")
    step = "0" if owner.has_srun_step else "batch"
    return owner.raw_id % 30000 + 32000 + gpu, {
        "cgroup_path": f"/system.slice/slurmstepd.scope/job_{owner.raw_id}/step_{step}/user/task_0",
        "kind": "slurm_job",
        "pod_uid": None,
        "container_id": None,
        "slurm_job_id": str(owner.raw_id),
        "slurm_step_id": step,
        "error": None,
    }


def nvml_jsonl(
    rng: random.Random,
    window: Window,
    host: str,
    gpu_model: str,
    gpu_uuids: Sequence[str],
    timelines: dict[int, list[Timeline]],
) -> str:
    """The NVML sampler's records of `host`: its devices once, then every NVML_STEP a sample
    per GPU and a process record per holder of the GPU (a job, a pod, or each pod holding a
    time-slice replica of it), whose cgroup names the job or pod."""
    start = window.at(NVML_FROM)
    idle_watts, max_watts = POWER_WATTS[gpu_model]
    total = MEMORY_BYTES[gpu_model]
    step = NVML_STEP.total_seconds()
    energy = [rng.randrange(10**9, 10**10) for _ in gpu_uuids]
    lines = [
        json_line(
            {
                "record_type": "device",
                "host": host,
                "observed_at": iso_us(start),
                "uuid": uuid,
                "index": gpu,
                "name": gpu_model,
                "memory_total_bytes": total,
                "mig_mode_current": 0,
                "mig_mode_pending": 0,
                "mig_devices": [],
                "null_reasons": {},
                "error": None,
            }
        )
        for gpu, uuid in enumerate(gpu_uuids)
    ]
    for poll in ticks(start, window.at(NVML_TO), NVML_STEP):
        for gpu, uuid in enumerate(gpu_uuids):
            holders = [h for t in timelines.get(gpu, []) if (h := t.at(poll)) is not None]
            if not holders:
                util, memory_util, used = 0, 0, IDLE_MEMORY_BYTES
                watts = idle_watts * rng.uniform(0.95, 1.1)
            else:
                util = rng.randint(35, 99)
                memory_util = int(util * rng.uniform(0.3, 0.6))
                used = int(total * rng.uniform(0.25, 0.92))
                watts = idle_watts + (max_watts - idle_watts) * util / 100 * rng.uniform(0.8, 1.0)
            energy[gpu] += int(watts * 1000 * step)
            common = {
                "host": host,
                "sampled_at": iso_us(poll),
                "interval_seconds": step,
            }
            lines.append(
                json_line(
                    {
                        "record_type": "sample",
                        **common,
                        "device_kind": "gpu",
                        "device_uuid": uuid,
                        "gpu_uuid": uuid,
                        "gpu_index": gpu,
                        "gpu_instance_id": None,
                        "compute_instance_id": None,
                        "utilization_gpu_percent": util,
                        "utilization_memory_percent": memory_util,
                        "memory_used_bytes": used,
                        "memory_total_bytes": total,
                        "power_mw": int(watts * 1000),
                        "energy_mj": energy[gpu],
                        "process_count": len(holders),
                        "null_reasons": {},
                        "error": None,
                    }
                )
            )
            pids: set[int] = set()
            for holding in holders:
                pid, owner = process_owner(holding.owner, gpu)
                while pid in pids:  # two pods' pids may collide; a host's never do
                    pid += 1
                pids.add(pid)
                lines.append(
                    json_line(
                        {
                            "record_type": "process",
                            **common,
                            "pid": pid,
                            "gpu_uuid": uuid,
                            "device_uuid": uuid,
                            "gpu_index": gpu,
                            "gpu_instance_id": None,
                            "compute_instance_id": None,
                            "used_gpu_memory_bytes": used - IDLE_MEMORY_BYTES,
                            "sm_util_percent": float(max(0, util - rng.randint(0, 8))),
                            "null_reasons": {},
                            "owner": owner,
                        }
                    )
                )
    return file_text(lines)


def nvml_files(
    seed: int,
    window: Window,
    uuids: dict[str, list[str]],
    slurm: tuple[Sequence[Job], dict[int, Placement]],
    holdings: dict[Slot, Timeline],
) -> dict[str, str]:
    """The NVML sampler's file of each of NVML_HOSTS, from the Slurm jobs or pods there."""
    jobs, placements = slurm
    models = {node.name: node.gpu_model for node in make_fleet(window)}
    models |= {node.name: node.gpu_model for node in KUBE_NODES}
    files = {}
    for host in NVML_HOSTS:
        timelines: dict[int, list[Timeline]] = collections.defaultdict(list)
        if host in (node.name for node in KUBE_NODES):
            for slot, timeline in sorted(holdings.items(), key=lambda item: item[0].instance):
                if slot.node == host:
                    timelines[slot.gpu_index].append(timeline)
        else:
            for gpu, timeline in slurm_holdings(jobs, placements, window, host).items():
                timelines[gpu].append(timeline)
        rng = random.Random(f"{seed}-nvml-{host}")
        files[f"nvml-{host}.jsonl"] = nvml_jsonl(
            rng, window, host, models[host], uuids[host], timelines
        )
    return files
