"""A demo fleet month: every kind of evidence `gpuledger demo` ingests, generated.

`generate` writes, for one period, what a deployment's extractors would have captured:

- `inventory.csv`, the CMDB export of every GPU (the Slurm cluster, the Kubernetes nodes and
  the vGPU hypervisor);
- one `sacct --parsable2 --noheader` file per ISO week (Open XDMoD's 26 fields) of a Slurm
  cluster of 8 H100 and 4 A100 nodes (8 GPUs each) run by a small scheduler (queue by
  priority then eligibility, best fit, draining for jobs waiting too long), so that
  allocations never exceed a node's GPUs. `dgx-a100-04` enters service on day 8; boreal
  serves on about its 16-GPU reservation and bursts above it; atlas trains in campaigns;
  jobs cross both month ends; `nlp-shared` changes owner mid-month (`NLP_SHARED_HANDOVER`);
  the unmapped accounts `scratch` and `hackathon` hold about 1% of the GPU-hours; every end
  state sacct reports, step rows, an array job, and jobs running or pending at extraction;
- the Kubernetes cluster `demo-k8s` (`kubectl get pods,namespaces,resourcequotas,nodes -A -o
  json` at the extraction, and the month's pod watch events): whole H100s, an A100 node in
  MIG mode (all-balanced: 3g + 2g + 1g + 1g per GPU) and an L4 node time-sliced 4 ways;
  serving Deployments pinned to their devices and rolled out every few days, Jobs and
  notebooks placed by a scheduler that never over-commits a device, a Pending pod, and
  namespaces owned by their tenant label, by the policy, or by nobody (`sandbox`);
- the vGPU host sampler's JSONL of `hv-a100-01` (A100D-40C and A100D-20C VMs coming and
  going, one VM known only by its domain id);
- NVML sampler JSONL of two Slurm nodes and two Kubernetes nodes (whole GPUs, and the
  time-sliced L4s, one process per pod holding a replica) for two days, whose processes'
  cgroups name the jobs and pods that ran there;
- Prometheus `/api/v1/query_range` responses: dcgm-exporter activity, framebuffer and power
  of the Kubernetes GPUs and MIG instances (with the pod that held them) for three days,
  and the vLLM counters of the shared `chat-shared` model server for the month;
- the model gateway's request log of `chat-shared`, three tenants' requests of the month.

The sources agree with one another: the NVML processes, dcgm-exporter pods and vLLM
counters are those of the jobs, pods and requests generated here. Every file's modification
time is the extraction instant (Kubernetes file mode dates its observations by it). Each
source draws from its own `random.Random` seeded by `seed`: the same seed writes the same
bytes, and the Slurm files are those the Slurm-only demo wrote.
"""

from __future__ import annotations

import bisect
import collections
import datetime as dt
import heapq
import itertools
import json
import math
import os
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from extractors.slurm.parse import XDMOD_FIELDS

CLUSTER = "demo"
GPUS_PER_NODE = 8
INVENTORY_COLUMNS = (
    "gpu_uuid",
    "node",
    "gpu_model",
    "gpu_class",
    "in_service_from",
    "in_service_to",
)
H100_MODEL = "NVIDIA H100 80GB HBM3"
A100_MODEL = "NVIDIA A100-SXM4-80GB"
PARTITIONS = {"h100": "gpu-h100", "a100": "gpu-a100"}
# Offsets from the period start; policy/demo/*.csv states the same instants for 2026-10.
LATE_NODE = "dgx-a100-04"
LATE_NODE_IN_SERVICE = dt.timedelta(days=7)
NLP_SHARED_HANDOVER = dt.timedelta(days=14, hours=12)
CIRRUS_RESERVATION_FROM = dt.timedelta(days=9)
HACKATHON = (dt.timedelta(days=16), dt.timedelta(days=18))
UNATTRIBUTED_TARGET_SHARE = 0.01
DRAIN_AFTER = dt.timedelta(hours=6)
TIMELIMITS_H = (1, 2, 4, 8, 12, 24, 48, 72)
HOUR = 3600
DAY = 86400
T = TypeVar("T")

STATE_EXIT = {
    "COMPLETED": "0:0",
    "FAILED": "1:0",
    "CANCELLED": "0:0",
    "TIMEOUT": "0:0",
    "OUT_OF_MEMORY": "0:125",
    "NODE_FAIL": "0:0",
    "PREEMPTED": "0:0",
    "RUNNING": "0:0",
}
# Job state -> (state, exit code) of its batch and srun steps, and of its extern step.
STEP_STATES = {
    "COMPLETED": (("COMPLETED", "0:0"), ("COMPLETED", "0:0")),
    "FAILED": (("FAILED", "1:0"), ("COMPLETED", "0:0")),
    "CANCELLED": (("CANCELLED", "0:15"), ("COMPLETED", "0:0")),
    "TIMEOUT": (("CANCELLED", "0:15"), ("COMPLETED", "0:0")),
    "OUT_OF_MEMORY": (("OUT_OF_MEMORY", "0:125"), ("OUT_OF_MEMORY", "0:125")),
    "NODE_FAIL": (("CANCELLED", "0:9"), ("CANCELLED", "0:9")),
    "PREEMPTED": (("CANCELLED", "0:15"), ("COMPLETED", "0:0")),
    "RUNNING": (("RUNNING", "0:0"), ("RUNNING", "0:0")),
}
RESEARCH_OUTCOMES = (
    ("COMPLETED", 0.78),
    ("FAILED", 0.07),
    ("CANCELLED", 0.05),
    ("TIMEOUT", 0.04),
    ("OUT_OF_MEMORY", 0.03),
    ("NODE_FAIL", 0.01),
    ("PREEMPTED", 0.02),
)
SERVING_OUTCOMES = (("COMPLETED", 0.93), ("FAILED", 0.03), ("CANCELLED", 0.03), ("NODE_FAIL", 0.01))


@dataclass(frozen=True)
class DemoFiles:
    """What `generate` wrote, per source (sacct files oldest first)."""

    inventory: Path
    sacct_files: tuple[Path, ...]
    kubernetes_files: tuple[Path, ...]
    vgpu_files: tuple[Path, ...]
    nvml_files: tuple[Path, ...]
    prometheus_files: tuple[Path, ...]
    request_files: tuple[Path, ...]

    def all_files(self) -> tuple[Path, ...]:
        return (
            self.inventory,
            *self.sacct_files,
            *self.kubernetes_files,
            *self.vgpu_files,
            *self.nvml_files,
            *self.prometheus_files,
            *self.request_files,
        )


@dataclass(frozen=True)
class Node:
    name: str
    gpu_model: str
    gpu_class: str
    in_service_from: dt.datetime
    gpus: int = GPUS_PER_NODE


@dataclass(frozen=True)
class Window:
    """The period and the accounting window around it (naive datetimes are UTC)."""

    period_start: dt.datetime
    period_end: dt.datetime
    first_submit: dt.datetime
    extracted_at: dt.datetime  # sacct ran here: later jobs are unknown, open ones RUNNING


@dataclass(frozen=True)
class User:
    name: str
    uid: int
    group: str
    gid: int


@dataclass(frozen=True)
class Stream:
    """A workload's arrival process and job shape (rates per day, runtimes in hours)."""

    account: str
    gpu_class: str
    users: tuple[User, ...]
    jobs_per_day: float
    gpu_choices: tuple[tuple[int, float], ...]  # (GPUs per job, weight)
    runtime_h: tuple[float, float]  # log-uniform bounds of the intended runtime
    job_names: tuple[str, ...]
    qos: str = "normal"
    outcomes: tuple[tuple[str, float], ...] = RESEARCH_OUTCOMES
    multinode_share: float = 0.0
    diurnal: bool = False
    bursts: int = 0  # campaigns of `burst_days` at `burst_factor` times the base rate
    burst_days: float = 2.0
    burst_factor: float = 1.0
    phases: tuple[tuple[dt.timedelta, float], ...] = ()  # (from offset, rate factor)
    active: tuple[dt.timedelta, dt.timedelta] | None = None  # offsets; None = whole window


@dataclass(frozen=True)
class Job:
    """One job (or array task) as submitted, with its fate decided up front."""

    account: str
    user: User
    gpu_class: str
    qos: str
    gpus: int
    node_count: int
    cpus_per_gpu: int
    mem_per_gpu_mb: int
    submit: dt.datetime
    eligible: dt.datetime
    runtime_s: int
    timelimit_s: int
    state: str
    job_name: str
    has_srun_step: bool
    cancelled_by: int
    array_group: int | None = None  # tasks of one array share it
    array_index: int | None = None
    job_id: str = ""
    raw_id: int = 0

    @property
    def priority(self) -> int:
        return {"production": 3, "normal": 2}.get(self.qos, 1)


@dataclass(frozen=True)
class Placement:
    start: dt.datetime
    nodes: tuple[str, ...]


# ---------------------------------------------------------------- fleet and window


def make_window(period: str) -> Window:
    try:
        year, month = (int(part) for part in period.split("-"))
        dt.date(year, month, 1)
    except ValueError:
        raise ValueError(f"period {period!r} is not YYYY-MM") from None
    start = dt.datetime(year, month, 1)
    end = dt.datetime(year + month // 12, month % 12 + 1, 1)
    return Window(
        period_start=start,
        period_end=end,
        first_submit=start - dt.timedelta(days=6),
        extracted_at=end + dt.timedelta(days=4),
    )


def fleet_since(window: Window) -> dt.datetime:
    """When the fleet (all but the late node) entered service: New Year of the year before."""
    return dt.datetime(window.period_start.year - 1, 1, 1)


def make_fleet(window: Window) -> tuple[Node, ...]:
    """The Slurm cluster's nodes (what the Slurm scheduler places jobs on)."""
    fleet_from = fleet_since(window)
    nodes = [Node(f"hgx-h100-{i:02d}", H100_MODEL, "h100", fleet_from) for i in range(1, 9)]
    for i in range(1, 5):
        name = f"dgx-a100-{i:02d}"
        since = window.period_start + LATE_NODE_IN_SERVICE if name == LATE_NODE else fleet_from
        nodes.append(Node(name, A100_MODEL, "a100", since))
    return tuple(nodes)


def gpu_uuid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def inventory_rows(fleet: Sequence[Node], seed: int) -> list[tuple[str, ...]]:
    """One CMDB row per GPU, nodes in order and each node's GPUs by index."""
    rng = random.Random(f"{seed}-inventory")
    return [
        (gpu_uuid(rng), node.name, node.gpu_model, node.gpu_class, iso_z(node.in_service_from), "")
        for node in fleet
        for _ in range(node.gpus)
    ]


def uuids_by_node(rows: Sequence[tuple[str, ...]]) -> dict[str, list[str]]:
    """Each node's GPU UUIDs by GPU index."""
    nodes: dict[str, list[str]] = {}
    for row in rows:
        nodes.setdefault(row[1], []).append(row[0])
    return nodes


# ---------------------------------------------------------------- tenants and workloads


def _users(group: str, gid: int, names: Iterable[str], first_uid: int) -> tuple[User, ...]:
    return tuple(User(n, first_uid + i, group, gid) for i, n in enumerate(names))


ATLAS = _users("atlas", 5100, ("alice", "arjun", "amara", "aiden"), 10101)
BOREAL = _users("boreal", 5200, ("svc-boreal", "bob", "bianca"), 10201)
CIRRUS = _users("cirrus", 5300, ("carol", "chen", "cleo"), 10301)
DELTA = _users("delta", 5400, ("dana", "diego"), 10401)
EMBER = _users("ember", 5500, ("erin", "eli"), 10501)
STAFF = _users("users", 100, ("frank", "grace", "heidi"), 10601)
HACKERS = _users("hackathon", 5900, tuple(f"hack{i:02d}" for i in range(1, 9)), 10901)


def streams() -> tuple[Stream, ...]:
    """The tenants' workloads (boreal's serving base load is `serving_chain`)."""
    return (
        Stream(
            account="boreal-batch",
            gpu_class="h100",
            users=BOREAL[1:],
            jobs_per_day=3.0,
            gpu_choices=((4, 0.5), (8, 0.5)),
            runtime_h=(1, 6),
            job_names=("batch-score", "embed-refresh", "ab-replay"),
            bursts=5,
            burst_days=1.5,
            burst_factor=5.0,
        ),
        Stream(
            account="atlas-train",
            gpu_class="h100",
            users=ATLAS,
            jobs_per_day=1.5,
            gpu_choices=((4, 0.25), (8, 0.75)),
            runtime_h=(4, 72),
            job_names=("pretrain-7b", "sft-run", "rlhf-ppo", "moe-ablation"),
            multinode_share=0.12,
            bursts=4,
            burst_days=3.0,
            burst_factor=3.5,
        ),
        Stream(
            account="atlas-eval",
            gpu_class="h100",
            users=ATLAS,
            jobs_per_day=12.0,
            gpu_choices=((1, 0.6), (2, 0.3), (4, 0.1)),
            runtime_h=(0.15, 4),
            job_names=("eval-harness", "mmlu", "notebook", "probe"),
            diurnal=True,
        ),
        Stream(
            account="nlp-shared",
            gpu_class="h100",
            users=ATLAS[2:] + CIRRUS[:2],  # atlas people before the handover, cirrus after
            jobs_per_day=1.6,
            gpu_choices=((2, 0.3), (4, 0.4), (8, 0.3)),
            runtime_h=(2, 36),
            job_names=("tokenizer-train", "distill", "ner-ft"),
        ),
        Stream(
            account="cirrus-nlp",
            gpu_class="a100",
            users=CIRRUS,
            jobs_per_day=7.0,
            gpu_choices=((1, 0.3), (2, 0.4), (4, 0.3)),
            runtime_h=(0.5, 24),
            job_names=("qa-finetune", "rerank", "summarize-eval"),
            phases=((dt.timedelta(0), 0.5), (CIRRUS_RESERVATION_FROM, 1.4)),
        ),
        Stream(
            account="delta-vision",
            gpu_class="a100",
            users=DELTA,
            jobs_per_day=4.0,
            gpu_choices=((2, 0.3), (4, 0.4), (8, 0.3)),
            runtime_h=(1, 48),
            job_names=("detector-train", "segformer", "video-embed"),
            bursts=3,
            burst_factor=2.0,
        ),
        Stream(
            account="ember-etl",
            gpu_class="a100",
            users=EMBER,
            jobs_per_day=10.0,
            gpu_choices=((1, 0.6), (2, 0.4)),
            runtime_h=(0.25, 10),
            job_names=("embed-batch", "dedup", "ocr-pages"),
            diurnal=True,
        ),
    )


def unmapped_streams() -> tuple[Stream, ...]:
    """Accounts nobody mapped to a tenant; `unmapped_jobs` thins them to the target share."""
    scratch = Stream(
        account="scratch",
        gpu_class="h100",
        users=STAFF,
        qos="low",
        jobs_per_day=4.0,
        gpu_choices=((1, 0.8), (2, 0.2)),
        runtime_h=(0.1, 4),
        job_names=("test", "smoke", "bash"),
        diurnal=True,
    )
    hackathon = Stream(
        account="hackathon",
        gpu_class="a100",
        users=HACKERS,
        qos="low",
        jobs_per_day=40.0,
        gpu_choices=((1, 0.6), (2, 0.4)),
        runtime_h=(0.5, 8),
        job_names=("hack-demo", "llm-agent", "finetune"),
        active=HACKATHON,
    )
    return (scratch, replace(scratch, gpu_class="a100", jobs_per_day=3.0), hackathon)


def weighted(rng: random.Random, choices: Sequence[tuple[T, float]]) -> T:
    return rng.choices([c for c, _ in choices], weights=[w for _, w in choices])[0]


def timelimit_for(runtime_s: float) -> int:
    needed = runtime_s * 1.25
    limit = next((h for h in TIMELIMITS_H if h * HOUR >= needed), TIMELIMITS_H[-1])
    return limit * HOUR


def make_job(
    rng: random.Random,
    stream: Stream,
    submit: dt.datetime,
    user: User,
    outcomes: Sequence[tuple[str, float]] | None = None,
    gpus: int | None = None,
    runtime_s: float | None = None,
) -> Job:
    """One job of `stream`; the end state decides the runtime (failures end early)."""
    multinode = gpus is None and rng.random() < stream.multinode_share
    if gpus is None:
        gpus = 2 * GPUS_PER_NODE if multinode else weighted(rng, stream.gpu_choices)
    if runtime_s is None:
        low, high = stream.runtime_h
        runtime_s = math.exp(rng.uniform(math.log(low), math.log(high))) * HOUR
    runtime_s = min(runtime_s, TIMELIMITS_H[-1] * HOUR)
    timelimit = timelimit_for(runtime_s)
    state = weighted(rng, outcomes or stream.outcomes)
    if state == "TIMEOUT":
        runtime_s = timelimit
    elif state != "COMPLETED":
        runtime_s *= rng.uniform(0.03, 0.9)
    return Job(
        account=stream.account,
        user=user,
        gpu_class=stream.gpu_class,
        qos=stream.qos,
        gpus=gpus,
        node_count=math.ceil(gpus / GPUS_PER_NODE),
        cpus_per_gpu=rng.choice((4, 8, 12, 16)),
        mem_per_gpu_mb=rng.choice((32000, 64000, 96000, 128000)),
        submit=submit,
        eligible=submit,
        runtime_s=max(30, int(runtime_s)),
        timelimit_s=timelimit,
        state=state,
        job_name=rng.choice(stream.job_names),
        has_srun_step=gpus > GPUS_PER_NODE or rng.random() < 0.5,
        cancelled_by=user.uid if rng.random() < 0.85 else 0,
    )


def burst_windows(
    rng: random.Random, stream: Stream, window: Window
) -> tuple[tuple[dt.datetime, dt.datetime], ...]:
    """Campaign windows, inside the period so the month shows them."""
    length = dt.timedelta(days=stream.burst_days)
    span = (window.period_end - window.period_start - length).total_seconds()
    starts = sorted(
        window.period_start + dt.timedelta(seconds=rng.uniform(0, span))
        for _ in range(stream.bursts)
    )
    return tuple((start, start + length) for start in starts)


def rate_factor(
    stream: Stream,
    window: Window,
    bursts: Sequence[tuple[dt.datetime, dt.datetime]],
    t: dt.datetime,
) -> float:
    offset = t - window.period_start
    if stream.active is not None and not stream.active[0] <= offset < stream.active[1]:
        return 0.0
    factor = 1.0
    for since, phase_factor in stream.phases:
        if offset >= since:
            factor = phase_factor
    if any(lo <= t < hi for lo, hi in bursts):
        factor *= stream.burst_factor
    if stream.diurnal:
        factor *= office_factor(t)
    return factor


def arrivals(rng: random.Random, stream: Stream, window: Window) -> list[dt.datetime]:
    """Submit times of a non-homogeneous Poisson process, by thinning."""
    bursts = burst_windows(rng, stream, window)
    peak = max([1.0, *(f for _, f in stream.phases)]) * max(1.0, stream.burst_factor) * 1.6
    rate = stream.jobs_per_day * peak / DAY
    t = window.first_submit
    times: list[dt.datetime] = []
    while True:
        t += dt.timedelta(seconds=int(rng.expovariate(rate)) + 1)
        if t >= window.extracted_at:
            return times
        if rng.random() * peak < rate_factor(stream, window, bursts, t):
            times.append(t)


def stream_jobs(rng: random.Random, stream: Stream, window: Window) -> list[Job]:
    handover = window.period_start + NLP_SHARED_HANDOVER
    jobs = []
    for submit in arrivals(rng, stream, window):
        users = stream.users
        if stream.account == "nlp-shared":
            users = tuple(u for u in users if (u.group == "atlas") == (submit < handover))
        jobs.append(make_job(rng, stream, submit, rng.choice(users)))
    return jobs


def serving_chain(rng: random.Random, window: Window, slots: int = 4) -> list[Job]:
    """boreal-serve: `slots` 4-GPU model servers redeployed back to back, about daily."""
    stream = Stream(
        account="boreal-serve",
        gpu_class="h100",
        users=BOREAL[:1],
        jobs_per_day=1.0,
        gpu_choices=((4, 1.0),),
        runtime_h=(12, 30),
        job_names=("serve-ranker", "serve-embedder"),
        qos="production",
        outcomes=SERVING_OUTCOMES,
    )
    jobs = []
    for _ in range(slots):
        t = window.first_submit + dt.timedelta(seconds=rng.randrange(0, 2 * HOUR))
        while t < window.extracted_at:
            job = make_job(rng, stream, t, stream.users[0], gpus=4)
            jobs.append(job)
            t += dt.timedelta(seconds=job.runtime_s + rng.randrange(60, 40 * 60))
    return jobs


def anchor_jobs(rng: random.Random, window: Window) -> list[Job]:
    """Jobs that pin the demo's edge cases regardless of what the streams drew."""
    by_account = {s.account: s for s in streams()}
    ps, pe = window.period_start, window.period_end
    handover = ps + NLP_SHARED_HANDOVER
    done = (("COMPLETED", 1.0),)

    def job(account: str, at: dt.datetime, user: User, gpus: int, hours: float) -> Job:
        stream = by_account[account]
        return make_job(rng, stream, at, user, done, gpus=gpus, runtime_s=hours * HOUR)

    jobs = [
        job("atlas-train", ps - dt.timedelta(hours=30), ATLAS[0], 8, 60),
        job("delta-vision", ps - dt.timedelta(hours=20), DELTA[0], 4, 40),
        job("nlp-shared", handover - dt.timedelta(hours=36), ATLAS[2], 4, 60),
        job("nlp-shared", handover - dt.timedelta(hours=40), ATLAS[3], 2, 8),
        job("nlp-shared", handover + dt.timedelta(hours=6), CIRRUS[1], 2, 8),
        job("delta-vision", pe - dt.timedelta(hours=20), DELTA[1], 8, 40),
        job("atlas-train", pe - dt.timedelta(hours=20), ATLAS[1], 8, 48),
    ]
    sweep_at = ps + dt.timedelta(days=11, hours=9, minutes=14)
    for index in range(4):
        task = job("atlas-eval", sweep_at, ATLAS[0], 1, rng.uniform(1, 3))
        jobs.append(replace(task, array_group=1, array_index=index, job_name="hp-sweep"))
    begin = window.extracted_at + dt.timedelta(hours=6)
    for hours_before, account, user in (
        (3, "atlas-train", ATLAS[3]),
        (1, "delta-vision", DELTA[1]),
    ):
        held = job(account, window.extracted_at - dt.timedelta(hours=hours_before), user, 8, 12)
        jobs.append(replace(held, eligible=begin))  # `sbatch --begin` after the extraction
    return jobs


def october_gpu_hours(job: Job, window: Window) -> float:
    """GPU-hours of `job` inside the period if it started when it became eligible."""
    start = max(job.eligible, window.period_start)
    end = min(job.eligible + dt.timedelta(seconds=job.runtime_s), window.period_end)
    return max(0.0, (end - start).total_seconds()) * job.gpus / HOUR


def unmapped_jobs(rng: random.Random, window: Window, main: Sequence[Job]) -> list[Job]:
    """Unmapped accounts' jobs, thinned at random to about the unattributed target share."""
    mapped_hours = sum(october_gpu_hours(j, window) for j in main)
    budget = mapped_hours * UNATTRIBUTED_TARGET_SHARE / (1 - UNATTRIBUTED_TARGET_SHARE)
    candidates = [j for s in unmapped_streams() for j in stream_jobs(rng, s, window)]
    rng.shuffle(candidates)
    kept, used = [], 0.0
    for job in candidates:
        hours = october_gpu_hours(job, window)
        if (hours == 0 and used < budget) or (hours > 0 and used + hours <= budget):
            kept.append(job)
            used += hours
    return kept


def assign_ids(jobs: Iterable[Job], first_id: int) -> list[Job]:
    """Job ids in submit order; an array's tasks share the first task's id (`<id>_<index>`)."""
    ordered = sorted(jobs, key=lambda j: (j.submit, j.array_index or 0, j.account, j.user.uid))
    result, next_id, arrays = [], first_id, {}
    for job in ordered:
        raw = next_id
        next_id += 1
        if job.array_group is None:
            result.append(replace(job, job_id=str(raw), raw_id=raw))
            continue
        base = arrays.setdefault(job.array_group, raw)
        result.append(replace(job, job_id=f"{base}_{job.array_index}", raw_id=raw))
    return result


# ---------------------------------------------------------------- scheduler


def _fit(job: Job, candidates: Sequence[Node], free: dict[str, int]) -> tuple[str, ...] | None:
    if job.node_count > 1:
        empty = [n.name for n in candidates if free[n.name] == GPUS_PER_NODE]
        return tuple(empty[: job.node_count]) if len(empty) >= job.node_count else None
    fitting = [n.name for n in candidates if free[n.name] >= job.gpus]
    if not fitting:
        return None
    return (min(fitting, key=lambda name: (free[name], name)),)


def _drain(job: Job, candidates: Sequence[Node], free: dict[str, int]) -> list[str]:
    """Nodes kept free of other work for a job that has waited too long."""
    fullest_free = sorted(candidates, key=lambda n: (-free[n.name], n.name))
    return [n.name for n in fullest_free[: job.node_count]]


def schedule(
    jobs: Sequence[Job], fleet: Sequence[Node], until: dt.datetime
) -> dict[int, Placement]:
    """Start each job at the first event where a node of its class has room; raw id -> placement.

    Events are job ends, node arrivals and job eligibility, in time order; at each instant
    ends free GPUs before anything starts. The queue is ordered by QOS priority, then
    eligibility; a job that waited `DRAIN_AFTER` reserves the nodes it needs.
    """
    free = {n.name: GPUS_PER_NODE for n in fleet}
    by_class: dict[str, list[Node]] = {}
    for node in fleet:
        by_class.setdefault(node.gpu_class, []).append(node)
    events: list[tuple[dt.datetime, int, int, int]] = []  # (time, kind, order, payload)
    for i, job in enumerate(jobs):
        heapq.heappush(events, (job.eligible, 2, i, i))
    for i, node in enumerate(fleet):
        heapq.heappush(events, (node.in_service_from, 1, i, i))
    queue: list[tuple[tuple[int, dt.datetime, int], int]] = []
    placements: dict[int, Placement] = {}
    ends: dict[int, tuple[tuple[str, ...], int]] = {}  # event payload -> released GPUs
    seq = len(jobs)
    while events and events[0][0] <= until:
        now = events[0][0]
        while events and events[0][0] == now:
            _, kind, _, payload = heapq.heappop(events)
            if kind == 0:
                nodes, gpus_per_node = ends[payload]
                for name in nodes:
                    free[name] += gpus_per_node
            elif kind == 2:  # kind 1, a node entering service, only needs a dispatch pass
                job = jobs[payload]
                bisect.insort(queue, ((-job.priority, job.eligible, job.raw_id), payload))
        started: list[int] = []
        drained: set[str] = set()
        for position, (_, index) in enumerate(queue):
            job = jobs[index]
            candidates = [
                n
                for n in by_class[job.gpu_class]
                if n.in_service_from <= now and n.name not in drained
            ]
            nodes = _fit(job, candidates, free)
            if nodes is None:
                if now - job.eligible >= DRAIN_AFTER:
                    drained.update(_drain(job, candidates, free))
                continue
            per_node = job.gpus // len(nodes)
            for name in nodes:
                free[name] -= per_node
            placements[job.raw_id] = Placement(now, nodes)
            seq += 1
            ends[seq] = (nodes, per_node)
            heapq.heappush(events, (now + dt.timedelta(seconds=job.runtime_s), 0, seq, seq))
            started.append(position)
        for position in reversed(started):
            del queue[position]
    return placements


def build_workload(rng: random.Random, window: Window) -> list[Job]:
    """Every job of the window, ids assigned, in submit order."""
    main = serving_chain(rng, window) + anchor_jobs(rng, window)
    for stream in streams():
        main += stream_jobs(rng, stream, window)
    return assign_ids(main + unmapped_jobs(rng, window, main), first_id=741001)


# ---------------------------------------------------------------- sacct text


def iso_z(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def sacct_time(t: dt.datetime | None) -> str:
    return "Unknown" if t is None else t.strftime("%Y-%m-%dT%H:%M:%S")


def slurm_duration(seconds: int) -> str:
    days, rest = divmod(seconds, DAY)
    hours, rest = divmod(rest, HOUR)
    clock = f"{hours:02d}:{rest // 60:02d}:{rest % 60:02d}"
    return f"{days}-{clock}" if days else clock


def hostlist(names: Sequence[str]) -> str:
    """Slurm's compressed host list: `hgx-h100-[03-04]`, `hgx-h100-[01,05]`, `hgx-h100-02`."""
    if len(names) == 1:
        return names[0]
    prefix = names[0].rsplit("-", 1)[0]
    numbers = sorted(int(n.rsplit("-", 1)[1]) for n in names)
    ranges: list[list[int]] = []
    for number in numbers:
        if ranges and number == ranges[-1][1] + 1:
            ranges[-1][1] = number
        else:
            ranges.append([number, number])
    parts = [f"{a:02d}" if a == b else f"{a:02d}-{b:02d}" for a, b in ranges]
    return f"{prefix}-[{','.join(parts)}]"


def tres(job: Job, nodes: int, billing: bool = True, typed: bool = True) -> str:
    """A TRES string for `nodes` of the job's nodes, as sacct lists AllocTRES and ReqTRES."""
    gpus = job.gpus * nodes // job.node_count
    cpus = gpus * job.cpus_per_gpu
    parts = [f"billing={cpus}"] if billing else []
    parts.append(f"cpu={cpus}")
    if typed:
        parts.append(f"gres/gpu:{job.gpu_class}={gpus}")
    parts += [f"gres/gpu={gpus}", f"mem={gpus * job.mem_per_gpu_mb}M", f"node={nodes}"]
    return ",".join(parts)


def sacct_line(values: dict[str, str]) -> str:
    return "|".join(values.get(field, "") for field in XDMOD_FIELDS)


def job_state_text(job: Job, state: str) -> str:
    return f"CANCELLED by {job.cancelled_by}" if state == "CANCELLED" else state


def job_row(job: Job, placement: Placement | None, window: Window) -> dict[str, str]:
    per_node_mem = job.gpus // job.node_count * job.mem_per_gpu_mb
    row = {
        "jobid": job.job_id,
        "jobidraw": str(job.raw_id),
        "cluster": CLUSTER,
        "partition": PARTITIONS[job.gpu_class],
        "qos": job.qos,
        "account": job.account,
        "group": job.user.group,
        "gid": str(job.user.gid),
        "user": job.user.name,
        "uid": str(job.user.uid),
        "submit": sacct_time(job.submit),
        "eligible": sacct_time(job.eligible),
        "nnodes": str(job.node_count),
        "ncpus": str(job.gpus * job.cpus_per_gpu),
        "reqcpus": str(job.gpus * job.cpus_per_gpu),
        "reqmem": f"{per_node_mem}M",
        "reqtres": tres(job, job.node_count, typed=False),
        "timelimit": slurm_duration(job.timelimit_s),
        "jobname": job.job_name,
    }
    if placement is None:
        row |= {"start": "Unknown", "end": "Unknown", "elapsed": "00:00:00"}
        row |= {"exitcode": "0:0", "state": "PENDING", "nodelist": "None assigned"}
        return row
    end, state = run_end(job, placement, window)
    row |= {
        "start": sacct_time(placement.start),
        "end": sacct_time(end),
        "elapsed": slurm_duration(elapsed(placement.start, end, window)),
        "exitcode": STATE_EXIT[state],
        "state": job_state_text(job, state),
        "alloctres": tres(job, job.node_count),
        "nodelist": hostlist(placement.nodes),
    }
    return row


def run_end(job: Job, placement: Placement, window: Window) -> tuple[dt.datetime | None, str]:
    """The job's end and state as sacct saw them at extraction (None, RUNNING if still on)."""
    end = placement.start + dt.timedelta(seconds=job.runtime_s)
    return (None, "RUNNING") if end > window.extracted_at else (end, job.state)


def elapsed(start: dt.datetime, end: dt.datetime | None, window: Window) -> int:
    return int(((end or window.extracted_at) - start).total_seconds())


@dataclass(frozen=True)
class Step:
    step_id: str  # "batch", "extern", "0"
    name: str
    start: dt.datetime
    end: dt.datetime | None
    nodes: tuple[str, ...]
    state: str
    exit_code: str
    billing: bool  # sacct lists billing in the extern step's AllocTRES, not the others'


def job_steps(rng: random.Random, job: Job, placement: Placement, window: Window) -> list[Step]:
    """The .batch, .extern and (for some jobs) .0 steps of a job that started."""
    end, state = run_end(job, placement, window)
    (step_state, step_exit), (extern_state, extern_exit) = STEP_STATES[state]
    start, nodes = placement.start, placement.nodes
    steps = [
        Step("batch", "batch", start, end, nodes[:1], step_state, step_exit, False),
        Step("extern", "extern", start, end, nodes, extern_state, extern_exit, True),
    ]
    srun_at = start + dt.timedelta(seconds=rng.randrange(3, 60))
    if job.has_srun_step and srun_at < (end or window.extracted_at):
        stop = end and max(srun_at, end - dt.timedelta(seconds=rng.randrange(1, 10)))
        name = "torchrun" if len(nodes) > 1 else rng.choice(("python", "python3", "bash"))
        steps.append(Step("0", name, srun_at, stop, nodes, step_state, step_exit, False))
    return steps


def step_row(job: Job, step: Step, window: Window) -> dict[str, str]:
    """A step's sacct row: no partition, QOS, user or ReqTRES; GPUs of its own nodes."""
    cpus = job.gpus * len(step.nodes) // job.node_count * job.cpus_per_gpu
    return {
        "jobid": f"{job.job_id}.{step.step_id}",
        "jobidraw": f"{job.raw_id}.{step.step_id}",
        "cluster": CLUSTER,
        "account": job.account,
        "submit": sacct_time(step.start),
        "eligible": sacct_time(step.start),
        "start": sacct_time(step.start),
        "end": sacct_time(step.end),
        "elapsed": slurm_duration(elapsed(step.start, step.end, window)),
        "exitcode": step.exit_code,
        "state": step.state,
        "nnodes": str(len(step.nodes)),
        "ncpus": str(cpus),
        "reqcpus": str(cpus),
        "reqmem": f"{job.gpus // job.node_count * job.mem_per_gpu_mb}M",
        "alloctres": tres(job, len(step.nodes), billing=step.billing),
        "nodelist": hostlist(step.nodes),
        "jobname": step.name,
    }


def week_file(end: dt.datetime) -> str:
    year, week, _ = end.isocalendar()
    return f"sacct_{year}-W{week:02d}.txt"


def sacct_files(
    rng: random.Random, jobs: Sequence[Job], placements: dict[int, Placement], window: Window
) -> dict[str, list[str]]:
    """Lines per weekly file: a job lands in the week its end falls in (open jobs: extraction)."""
    files: dict[str, list[str]] = {}
    for job in sorted(jobs, key=lambda j: j.raw_id):
        placement = placements.get(job.raw_id)
        end = run_end(job, placement, window)[0] if placement else None
        lines = files.setdefault(week_file(end or window.extracted_at), [])
        lines.append(sacct_line(job_row(job, placement, window)))
        if placement is not None:
            steps = job_steps(rng, job, placement, window)
            lines += [sacct_line(step_row(job, step, window)) for step in steps]
    return dict(sorted(files.items()))


# ---------------------------------------------------------------- the other sources: common


L4_MODEL = "NVIDIA L4"
GPU_CLASSES = {H100_MODEL: "h100", A100_MODEL: "a100", L4_MODEL: "l4"}
MEMORY_BYTES = {H100_MODEL: 85520809984, A100_MODEL: 85899345920, L4_MODEL: 24152899584}
POWER_WATTS = {H100_MODEL: (68.0, 690.0), A100_MODEL: (56.0, 395.0), L4_MODEL: (16.0, 72.0)}
EPOCH = dt.datetime(1970, 1, 1)
K8S_NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789"


def random_uuid(rng: random.Random) -> str:
    """A version-4 UUID drawn from `rng`."""
    h = f"{rng.getrandbits(128):032x}"
    variant = "89ab"[int(h[16], 16) % 4]
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{variant}{h[17:20]}-{h[20:]}"


def random_hex(rng: random.Random, digits: int) -> str:
    return f"{rng.getrandbits(4 * digits):0{digits}x}"


def k8s_suffix(rng: random.Random, length: int) -> str:
    """A generated-name suffix as Kubernetes writes them (`-x7k2p`)."""
    return "".join(rng.choice(K8S_NAME_CHARS) for _ in range(length))


def log_uniform(rng: random.Random, low: float, high: float) -> float:
    return math.exp(rng.uniform(math.log(low), math.log(high)))


def epoch_seconds(t: dt.datetime) -> int:
    return int((t - EPOCH).total_seconds())


def iso_ms(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def iso_us(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def ticks(start: dt.datetime, end: dt.datetime, step: dt.timedelta) -> list[dt.datetime]:
    """start, start + step, ... up to and including `end`."""
    return [start + i * step for i in range((end - start) // step + 1)]


def office_factor(t: dt.datetime) -> float:
    """Relative arrival rate of interactive work: busier on weekday office hours (UTC)."""
    return 1.6 if t.weekday() < 5 and 8 <= t.hour < 19 else 0.5


def poisson_times(
    rng: random.Random, per_day: float, start: dt.datetime, end: dt.datetime, diurnal: bool
) -> list[dt.datetime]:
    """Whole-second arrival times of a Poisson process in [start, end), thinned by
    `office_factor` when `diurnal`."""
    peak = 1.6 if diurnal else 1.0
    rate = per_day * peak / DAY
    t, times = start, []
    while True:
        t += dt.timedelta(seconds=int(rng.expovariate(rate)) + 1)
        if t >= end:
            return times
        if not diurnal or rng.random() * peak < office_factor(t):
            times.append(t)


@dataclass(frozen=True)
class Holding:
    """One device (GPU, MIG instance, time-slice replica) held from `start` until `end`
    (None: still held at the extraction) by `owner` (a Job or a KubePod)."""

    start: dt.datetime
    end: dt.datetime | None
    owner: object


@dataclass(frozen=True)
class Timeline:
    """A device's holdings in time order; they never overlap."""

    holdings: tuple[Holding, ...]
    starts: tuple[dt.datetime, ...]

    @classmethod
    def of(cls, holdings: Iterable[Holding]) -> Timeline:
        ordered = tuple(sorted(holdings, key=lambda h: h.start))
        for before, after in itertools.pairwise(ordered):
            if before.end is None or before.end > after.start:
                raise AssertionError(f"overlapping holdings at {after.start}")
        return cls(ordered, tuple(h.start for h in ordered))

    def at(self, t: dt.datetime) -> Holding | None:
        index = bisect.bisect_right(self.starts, t) - 1
        if index < 0:
            return None
        holding = self.holdings[index]
        return holding if holding.end is None or t < holding.end else None


def json_line(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


# ---------------------------------------------------------------- Kubernetes

K8S_CLUSTER = "demo-k8s"
GPU_RESOURCE = "nvidia.com/gpu"
SHARED_RESOURCE = "nvidia.com/gpu.shared"
TIMESLICE_REPLICAS = 4
# Every A100 of the MIG node in the all-balanced layout: (profile, GPU instance id); 7 slices.
MIG_LAYOUT = (("3g.40gb", 1), ("2g.20gb", 5), ("1g.10gb", 13), ("1g.10gb", 14))
MIG_SLICES = {"3g.40gb": 3, "2g.20gb": 2, "1g.10gb": 1}
MIG_MEMORY_MIB = {"3g.40gb": 40192, "2g.20gb": 19968, "1g.10gb": 9728}
TENANT_LABEL = "gpuledger.io/tenant"
PROJECT_LABEL = "gpuledger.io/project"
REPLICAS_ANNOTATION = "gpuledger.io/timeslice-replicas"
CONTROL_PLANE = "k8s-cp-01"
KUBE_DRAIN_AFTER = dt.timedelta(hours=4)
JOB_POD_TTL = dt.timedelta(days=2)  # finished Job pods are still listed this long
DELETION_GRACE_S = 30
STOP_S = 4  # a deleted pod's container stops this long after the deletion request
OWNER_API = {"Job": "batch/v1", "ReplicaSet": "apps/v1", "StatefulSet": "apps/v1"}


def mig_resource(profile: str) -> str:
    return f"nvidia.com/mig-{profile}"


@dataclass(frozen=True)
class Slot:
    """One schedulable device: a whole GPU, a MIG instance (`instance` is its GPU instance
    id) or a time-slice replica (`instance` is the replica number)."""

    node: str
    resource: str
    gpu_index: int
    instance: int = 0


@dataclass(frozen=True)
class KubeNode:
    name: str
    sharing: str  # whole, mig or timeslice
    gpus: int
    gpu_model: str
    product: str  # GPU feature discovery's nvidia.com/gpu.product
    memory_mib: int  # per GPU (nvidia.com/gpu.memory)
    address: str

    def slots(self) -> list[Slot]:
        if self.sharing == "mig":
            return [
                Slot(self.name, mig_resource(profile), gpu, instance)
                for gpu in range(self.gpus)
                for profile, instance in MIG_LAYOUT
            ]
        if self.sharing == "timeslice":
            return [
                Slot(self.name, SHARED_RESOURCE, gpu, replica)
                for gpu in range(self.gpus)
                for replica in range(TIMESLICE_REPLICAS)
            ]
        return [Slot(self.name, GPU_RESOURCE, gpu) for gpu in range(self.gpus)]

    def capacity(self) -> dict[str, int]:
        counts: dict[str, int] = collections.Counter(slot.resource for slot in self.slots())
        return dict(sorted(counts.items()))


KUBE_NODES = (
    KubeNode("k8s-h100-01", "whole", 8, H100_MODEL, "NVIDIA-H100-80GB-HBM3", 81559, "10.30.0.11"),
    KubeNode("k8s-h100-02", "whole", 8, H100_MODEL, "NVIDIA-H100-80GB-HBM3", 81559, "10.30.0.12"),
    KubeNode("k8s-a100-mig-01", "mig", 8, A100_MODEL, "NVIDIA-A100-SXM4-80GB", 81920, "10.30.0.21"),
    KubeNode("k8s-l4-ts-01", "timeslice", 4, L4_MODEL, "NVIDIA-L4-SHARED", 23034, "10.30.0.31"),
)


@dataclass(frozen=True)
class KubeNamespace:
    name: str
    labels: tuple[tuple[str, str], ...]
    quota: tuple[tuple[str, int], ...]  # the GPU ResourceQuota's nominal hard limits


KUBE_NAMESPACES = (
    KubeNamespace(
        "ml-serving",
        ((TENANT_LABEL, "boreal"), (PROJECT_LABEL, "boreal-chat")),
        ((GPU_RESOURCE, 4), (SHARED_RESOURCE, 2)),
    ),
    KubeNamespace(
        "research-train",
        ((TENANT_LABEL, "atlas"), (PROJECT_LABEL, "atlas-foundation")),
        ((GPU_RESOURCE, 12),),
    ),
    KubeNamespace(
        "vision",
        ((TENANT_LABEL, "delta"), (PROJECT_LABEL, "delta-perception")),
        ((mig_resource("3g.40gb"), 6), (mig_resource("2g.20gb"), 6)),
    ),
    # No tenant label: policy/demo/ownership.csv gives it to cirrus.
    KubeNamespace(
        "nlp-notebooks",
        (("team", "nlp"),),
        ((mig_resource("1g.10gb"), 12), (SHARED_RESOURCE, 6)),
    ),
    # Labelled, but with no tenant, and in no policy: its usage is unattributed.
    KubeNamespace(
        "sandbox", (("purpose", "experiments"), ("team", "platform-dev")), ((SHARED_RESOURCE, 4),)
    ),
)
SYSTEM_NAMESPACES = ("default", "gpu-operator", "kube-system")


@dataclass(frozen=True)
class PodStream:
    """A namespace's batch work: Jobs (one pod, Succeeded or Failed) or notebooks (a
    StatefulSet of one pod, deleted when its user is done)."""

    namespace: str
    controller: str  # Job or StatefulSet
    names: tuple[str, ...]
    container: str
    image: str
    resource: str
    counts: tuple[tuple[int, float], ...]  # (devices per pod, weight)
    per_day: float
    runtime_h: tuple[float, float]  # log-uniform bounds
    cpu: int  # per device
    memory_gi: int  # per device
    failure_share: float = 0.0
    diurnal: bool = False
    annotations: tuple[tuple[str, str], ...] = ()


PYTORCH = "nvcr.io/nvidia/pytorch:24.08-py3"
POD_STREAMS = (
    PodStream(
        namespace="research-train",
        controller="Job",
        names=("pretrain-7b", "sft-llama", "dpo-run", "moe-ablation"),
        container="trainer",
        image=PYTORCH,
        resource=GPU_RESOURCE,
        counts=((4, 0.4), (8, 0.6)),
        per_day=0.9,
        runtime_h=(3, 36),
        cpu=12,
        memory_gi=120,
        failure_share=0.12,
    ),
    PodStream(
        namespace="research-train",
        controller="Job",
        names=("eval-harness", "mmlu-eval", "probe"),
        container="eval",
        image=PYTORCH,
        resource=GPU_RESOURCE,
        counts=((1, 0.6), (2, 0.4)),
        per_day=2.0,
        runtime_h=(0.3, 4),
        cpu=8,
        memory_gi=64,
        failure_share=0.06,
        diurnal=True,
    ),
    PodStream(
        namespace="vision",
        controller="Job",
        names=("detector-train", "segformer-ft"),
        container="trainer",
        image=PYTORCH,
        resource=mig_resource("3g.40gb"),
        counts=((1, 1.0),),
        per_day=1.2,
        runtime_h=(2, 16),
        cpu=8,
        memory_gi=48,
        failure_share=0.08,
    ),
    PodStream(
        namespace="vision",
        controller="Job",
        names=("label-assist", "video-embed"),
        container="worker",
        image="nvcr.io/nvidia/tritonserver:24.08-py3",
        resource=mig_resource("2g.20gb"),
        counts=((1, 1.0),),
        per_day=1.5,
        runtime_h=(0.5, 6),
        cpu=4,
        memory_gi=24,
        failure_share=0.04,
        diurnal=True,
    ),
    PodStream(
        namespace="nlp-notebooks",
        controller="StatefulSet",
        names=("nb-carol", "nb-chen", "nb-cleo"),
        container="notebook",
        image="quay.io/jupyter/pytorch-notebook:cuda12-2024-10-07",
        resource=mig_resource("1g.10gb"),
        counts=((1, 1.0),),
        per_day=2.0,
        runtime_h=(1, 9),
        cpu=2,
        memory_gi=16,
        diurnal=True,
    ),
    PodStream(
        namespace="nlp-notebooks",
        controller="Job",
        names=("rerank-eval", "qa-batch"),
        container="eval",
        image=PYTORCH,
        resource=SHARED_RESOURCE,
        counts=((1, 1.0),),
        per_day=1.5,
        runtime_h=(0.25, 3),
        cpu=4,
        memory_gi=16,
        failure_share=0.05,
    ),
    PodStream(
        namespace="sandbox",
        controller="StatefulSet",
        names=("dev-frank", "dev-grace"),
        container="shell",
        image="nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04",
        resource=SHARED_RESOURCE,
        counts=((1, 1.0),),
        per_day=0.8,
        runtime_h=(0.5, 5),
        cpu=2,
        memory_gi=8,
        annotations=((REPLICAS_ANNOTATION, str(TIMESLICE_REPLICAS)),),
    ),
)


@dataclass(frozen=True)
class Deployment:
    """A server pinned to its devices (a nodeSelector and a dedicated device set) and
    redeployed every few days, replica by replica (each replica's pod is deleted, then
    its successor created)."""

    namespace: str
    name: str
    container: str
    image: str
    replicas: tuple[tuple[Slot, ...], ...]  # each replica's devices
    lifetime_h: tuple[float, float]
    cpu: int  # per device
    memory_gi: int  # per device


CHAT_DEPLOYMENT = "chat-llama70b"
DEPLOYMENTS = (
    Deployment(
        namespace="ml-serving",
        name=CHAT_DEPLOYMENT,
        container="vllm",
        image="vllm/vllm-openai:v0.6.3.post1",
        replicas=(tuple(Slot("k8s-h100-01", GPU_RESOURCE, gpu) for gpu in range(4)),),
        lifetime_h=(96, 216),
        cpu=12,
        memory_gi=120,
    ),
    Deployment(
        namespace="ml-serving",
        name="embedder",
        container="tei",
        image="ghcr.io/huggingface/text-embeddings-inference:1.5",
        replicas=(
            (Slot("k8s-l4-ts-01", SHARED_RESOURCE, 0),),
            (Slot("k8s-l4-ts-01", SHARED_RESOURCE, 1),),
        ),
        lifetime_h=(120, 300),
        cpu=4,
        memory_gi=16,
    ),
    Deployment(
        namespace="vision",
        name="vision-infer",
        container="triton",
        image="nvcr.io/nvidia/tritonserver:24.08-py3",
        replicas=(
            (Slot("k8s-a100-mig-01", mig_resource("3g.40gb"), 0, 1),),
            (Slot("k8s-a100-mig-01", mig_resource("3g.40gb"), 1, 1),),
        ),
        lifetime_h=(72, 240),
        cpu=8,
        memory_gi=48,
    ),
)


@dataclass(frozen=True)
class KubePod:
    """One pod: what its controller created, and where and when it ran (`slots` empty and
    `scheduled_at` None while unscheduled). Its container starts `pull_s` after the binding
    and runs `runtime_s`; a Job's pod then ends (Succeeded or Failed), any other pod is
    deleted then and its container stops STOP_S later."""

    namespace: str
    name: str
    uid: str
    owner_kind: str  # Job, ReplicaSet or StatefulSet
    owner_name: str
    owner_uid: str
    container: str
    image: str
    image_digest: str
    container_id: str
    resource: str
    count: int
    cpu: int
    memory_gi: int
    labels: tuple[tuple[str, str], ...]
    annotations: tuple[tuple[str, str], ...]
    created_at: dt.datetime
    pull_s: int
    runtime_s: int
    ending: str  # Succeeded, Failed or Deleted
    pinned: bool = False
    slots: tuple[Slot, ...] = ()
    scheduled_at: dt.datetime | None = None

    @property
    def node(self) -> str | None:
        return self.slots[0].node if self.slots else None

    @property
    def started_at(self) -> dt.datetime | None:
        return (
            None
            if self.scheduled_at is None
            else self.scheduled_at + dt.timedelta(seconds=self.pull_s)
        )

    @property
    def deletion_requested_at(self) -> dt.datetime | None:
        if self.started_at is None or self.ending != "Deleted":
            return None
        return self.started_at + dt.timedelta(seconds=self.runtime_s)

    @property
    def finished_at(self) -> dt.datetime | None:
        """When the container stopped (maybe after the extraction); None if never started."""
        if self.started_at is None:
            return None
        stop = STOP_S if self.ending == "Deleted" else 0
        return self.started_at + dt.timedelta(seconds=self.runtime_s + stop)

    @property
    def ip(self) -> str:
        node = next((i for i, n in enumerate(KUBE_NODES) if n.name == self.node), 9)
        return f"10.244.{node + 1}.{int(self.uid[:4], 16) % 250 + 2}"


def make_pod(
    rng: random.Random,
    *,
    namespace: str,
    name: str,
    owner: tuple[str, str, str],
    template: tuple[str, str, str, int, int],
    count: int,
    labels: tuple[tuple[str, str], ...],
    annotations: tuple[tuple[str, str], ...],
    created_at: dt.datetime,
    runtime_s: int,
    ending: str,
) -> KubePod:
    """A pod with its ids drawn; `owner` is (kind, name, uid), `template` (container, image,
    resource, cpu per device, memory GiB per device)."""
    container, image, resource, cpu, memory_gi = template
    return KubePod(
        namespace=namespace,
        name=name,
        uid=random_uuid(rng),
        owner_kind=owner[0],
        owner_name=owner[1],
        owner_uid=owner[2],
        container=container,
        image=image,
        image_digest=random_hex(rng, 64),
        container_id=random_hex(rng, 64),
        resource=resource,
        count=count,
        cpu=cpu,
        memory_gi=memory_gi,
        labels=labels,
        annotations=annotations,
        created_at=created_at,
        pull_s=rng.randrange(4, 150),
        runtime_s=max(60, int(runtime_s)),
        ending=ending,
    )


def stream_pods(rng: random.Random, stream: PodStream, window: Window) -> list[KubePod]:
    pods = []
    template = (stream.container, stream.image, stream.resource, stream.cpu, stream.memory_gi)
    for created in poisson_times(
        rng, stream.per_day, window.first_submit, window.extracted_at, stream.diurnal
    ):
        base = rng.choice(stream.names)
        count = weighted(rng, stream.counts)
        runtime = log_uniform(rng, *stream.runtime_h) * HOUR
        owner_name = f"{base}-{k8s_suffix(rng, 5)}"
        if stream.controller == "Job":
            failed = rng.random() < stream.failure_share
            runtime *= rng.uniform(0.02, 0.8) if failed else 1.0
            name = f"{owner_name}-{k8s_suffix(rng, 5)}"
            labels = (("batch.kubernetes.io/job-name", owner_name), ("job-name", owner_name))
            ending = "Failed" if failed else "Succeeded"
        else:
            name = f"{owner_name}-0"
            labels = (("app", base), ("statefulset.kubernetes.io/pod-name", name))
            ending = "Deleted"
        pods.append(
            make_pod(
                rng,
                namespace=stream.namespace,
                name=name,
                owner=(stream.controller, owner_name, random_uuid(rng)),
                template=template,
                count=count,
                labels=labels,
                annotations=stream.annotations,
                created_at=created,
                runtime_s=int(runtime),
                ending=ending,
            )
        )
    return pods


def anchor_pods(rng: random.Random, window: Window) -> list[KubePod]:
    """Two 8-GPU training Jobs near the extraction: only one node can hold either (the chat
    server keeps half of the other), so at least one of them is Pending when listed."""
    train = POD_STREAMS[0]
    template = (train.container, train.image, train.resource, train.cpu, train.memory_gi)
    pods = []
    for hours_before, hours, base in ((20, 48, "pretrain-13b"), (3, 30, "pretrain-13b-v2")):
        job = f"{base}-{k8s_suffix(rng, 5)}"
        pods.append(
            make_pod(
                rng,
                namespace=train.namespace,
                name=f"{job}-{k8s_suffix(rng, 5)}",
                owner=("Job", job, random_uuid(rng)),
                template=template,
                count=8,
                labels=(("batch.kubernetes.io/job-name", job), ("job-name", job)),
                annotations=(),
                created_at=window.extracted_at - dt.timedelta(hours=hours_before),
                runtime_s=hours * HOUR,
                ending="Succeeded",
            )
        )
    return pods


def deployment_pods(rng: random.Random, deployment: Deployment, window: Window) -> list[KubePod]:
    """The pods of every rollout; a replica's successor is created right after it stopped."""
    rollouts = [window.first_submit + dt.timedelta(days=1, seconds=rng.randrange(0, 12 * HOUR))]
    while rollouts[-1] < window.extracted_at:
        lifetime = rng.uniform(*deployment.lifetime_h) * HOUR
        rollouts.append(rollouts[-1] + dt.timedelta(seconds=int(lifetime)))
    pods = []
    replica_sets = [(k8s_suffix(rng, 10), random_uuid(rng)) for _ in rollouts[:-1]]
    for replica, slots in enumerate(deployment.replicas):
        stagger = dt.timedelta(minutes=4 * replica)
        created = rollouts[0] + stagger
        for (template_hash, rs_uid), deleted in zip(replica_sets, rollouts[1:], strict=True):
            rs_name = f"{deployment.name}-{template_hash}"
            pod = make_pod(
                rng,
                namespace=deployment.namespace,
                name=f"{rs_name}-{k8s_suffix(rng, 5)}",
                owner=("ReplicaSet", rs_name, rs_uid),
                template=(
                    deployment.container,
                    deployment.image,
                    slots[0].resource,
                    deployment.cpu,
                    deployment.memory_gi,
                ),
                count=len(slots),
                labels=(("app", deployment.name), ("pod-template-hash", template_hash)),
                annotations=(),
                created_at=created,
                runtime_s=HOUR,  # set below, once the start is known
                ending="Deleted",
            )
            scheduled = created + dt.timedelta(seconds=1)
            started = scheduled + dt.timedelta(seconds=pod.pull_s)
            runtime = int((deleted + stagger - started).total_seconds())
            pod = replace(pod, slots=slots, scheduled_at=scheduled, runtime_s=runtime, pinned=True)
            pods.append(pod)
            created = (pod.finished_at or deleted) + dt.timedelta(seconds=1)
    return pods


def _slot_order(slot: Slot) -> tuple[int, int]:
    """Free devices are taken instance first, then GPU: MIG pods spread over the GPUs.
    Time-slice replicas are bin-packed, a GPU's replicas before the next GPU's, so pods of
    different tenants share an L4 (the NVML sampler then sees each one's processes)."""
    if slot.resource == SHARED_RESOURCE:
        return (slot.gpu_index, slot.instance)
    return (slot.instance, slot.gpu_index)


def schedule_pods(
    pods: Sequence[KubePod], slots: Sequence[Slot], until: dt.datetime
) -> list[KubePod]:
    """Bind each pod at the first event where one node has enough free devices of its
    resource (best fit); a pod that waited KUBE_DRAIN_AFTER keeps the emptiest node's
    devices from others. Devices are held from the binding until the container stopped."""
    free: dict[tuple[str, str], list[Slot]] = {}
    for slot in sorted(slots, key=_slot_order):
        free.setdefault((slot.node, slot.resource), []).append(slot)
    events = [(pod.created_at, 1, index) for index, pod in enumerate(pods)]
    heapq.heapify(events)
    queue: list[tuple[tuple[dt.datetime, int], int]] = []
    placed: dict[int, KubePod] = {}
    while events and events[0][0] <= until:
        now = events[0][0]
        while events and events[0][0] == now:
            _, kind, index = heapq.heappop(events)
            if kind == 0:
                for slot in placed[index].slots:
                    bisect.insort(free[(slot.node, slot.resource)], slot, key=_slot_order)
            else:
                bisect.insort(queue, ((pods[index].created_at, index), index))
        started: list[int] = []
        drained: set[str] = set()
        for position, (_, index) in enumerate(queue):
            pod = pods[index]
            keys = [k for k in free if k[1] == pod.resource and k[0] not in drained]
            fitting = [k for k in keys if len(free[k]) >= pod.count]
            if not fitting:
                if now - pod.created_at >= KUBE_DRAIN_AFTER and keys:
                    drained.add(max(keys, key=lambda k: (len(free[k]), k[0]))[0])
                continue
            key = min(fitting, key=lambda k: (len(free[k]), k[0]))
            taken = tuple(free[key][: pod.count])
            del free[key][: pod.count]
            placed[index] = replace(pod, slots=taken, scheduled_at=now)
            heapq.heappush(events, (placed[index].finished_at or now, 0, index))
            started.append(position)
        for position in reversed(started):
            del queue[position]
    return [placed.get(index, pod) for index, pod in enumerate(pods)]


def kubernetes_workload(rng: random.Random, window: Window) -> list[KubePod]:
    """Every pod of the window (created before the extraction), in creation order."""
    pinned = [pod for d in DEPLOYMENTS for pod in deployment_pods(rng, d, window)]
    batch = [pod for stream in POD_STREAMS for pod in stream_pods(rng, stream, window)]
    batch += anchor_pods(rng, window)
    batch.sort(key=lambda pod: (pod.created_at, pod.uid))
    reserved = {slot for d in DEPLOYMENTS for replica in d.replicas for slot in replica}
    slots = [s for node in KUBE_NODES for s in node.slots() if s not in reserved]
    pods = pinned + schedule_pods(batch, slots, window.extracted_at)
    return sorted(
        (pod for pod in pods if pod.created_at < window.extracted_at),
        key=lambda pod: (pod.created_at, pod.uid),
    )


def pod_holdings(pods: Iterable[KubePod], cut: dt.datetime) -> dict[Slot, Timeline]:
    """Each device's holders, [container start, container stop) as known at `cut`."""
    by_slot: dict[Slot, list[Holding]] = {}
    for pod in pods:
        start, stop = pod.started_at, pod.finished_at
        if start is None or start > cut:
            continue
        end = stop if stop is not None and stop <= cut else None
        for slot in pod.slots:
            by_slot.setdefault(slot, []).append(Holding(start, end, pod))
    return {slot: Timeline.of(holdings) for slot, holdings in by_slot.items()}


# ---------------------------------------------------------------- Kubernetes objects


def _condition(kind: str, status: bool, at: dt.datetime, reason: str = "") -> dict[str, object]:
    condition: dict[str, object] = {
        "lastProbeTime": None,
        "lastTransitionTime": iso_z(at),
        "status": "True" if status else "False",
        "type": kind,
    }
    if reason:
        condition["reason"] = reason
    return condition


def unschedulable_message(resource: str) -> str:
    nodes = len(KUBE_NODES) + 1
    return (
        f"0/{nodes} nodes are available: 1 node(s) had untolerated taint "
        f"{{node-role.kubernetes.io/control-plane: }}, {nodes - 1} Insufficient {resource}. "
        f"preemption: 0/{nodes} nodes are available: 1 Preemption is not helpful for "
        f"scheduling, {nodes - 1} No preemption victims found for incoming pod."
    )


def pod_status(pod: KubePod, at: dt.datetime) -> dict[str, object]:
    """The pod's status as the API showed it at `at`."""
    scheduled, started, finished = pod.scheduled_at, pod.started_at, pod.finished_at
    if scheduled is None or started is None or finished is None or at < scheduled:
        return {
            "conditions": [
                {
                    **_condition("PodScheduled", False, pod.created_at, "Unschedulable"),
                    "message": unschedulable_message(pod.resource),
                }
            ],
            "phase": "Pending",
            "qosClass": "Guaranteed",
        }
    node = next(n for n in KUBE_NODES if n.name == pod.node)
    image_id = f"{pod.image.split(':')[0]}@sha256:{pod.image_digest}"
    container: dict[str, object] = {
        "image": pod.image,
        "imageID": image_id,
        "lastState": {},
        "name": pod.container,
        "restartCount": 0,
    }
    if at < started:
        phase = "Pending"
        ready_at, ready = scheduled, False
        container |= {"imageID": "", "ready": False, "started": False}
        container["state"] = {"waiting": {"reason": "ContainerCreating"}}
    elif at < finished:
        phase = "Running"
        ready_at, ready = started, True
        container |= {"containerID": f"containerd://{pod.container_id}", "ready": True}
        container |= {"started": True, "state": {"running": {"startedAt": iso_z(started)}}}
    else:
        failed = pod.ending == "Failed"
        phase = "Failed" if failed else "Succeeded"
        ready_at, ready = finished, False
        container |= {"containerID": f"containerd://{pod.container_id}", "ready": False}
        container["started"] = False
        container["state"] = {
            "terminated": {
                "containerID": f"containerd://{pod.container_id}",
                "exitCode": 1 if failed else 0,
                "finishedAt": iso_z(finished),
                "reason": "Error" if failed else "Completed",
                "startedAt": iso_z(started),
            }
        }
    done_reason = (
        ""
        if phase in ("Pending", "Running")
        else f"Pod{'Failed' if phase == 'Failed' else 'Completed'}"
    )
    return {
        "conditions": [
            _condition("Initialized", True, scheduled, done_reason),
            _condition("Ready", ready, ready_at, done_reason),
            _condition("ContainersReady", ready, ready_at, done_reason),
            _condition("PodScheduled", True, scheduled),
        ],
        "containerStatuses": [container],
        "hostIP": node.address,
        "hostIPs": [{"ip": node.address}],
        "phase": phase,
        "podIP": pod.ip,
        "podIPs": [{"ip": pod.ip}],
        "qosClass": "Guaranteed",
        "startTime": iso_z(scheduled),
    }


def pod_object(pod: KubePod, at: dt.datetime, resource_version: int) -> dict[str, object]:
    """The pod as the API served it at `at`."""
    metadata: dict[str, object] = {
        "creationTimestamp": iso_z(pod.created_at),
        "labels": dict(pod.labels),
        "name": pod.name,
        "namespace": pod.namespace,
        "ownerReferences": [
            {
                "apiVersion": OWNER_API[pod.owner_kind],
                "blockOwnerDeletion": True,
                "controller": True,
                "kind": pod.owner_kind,
                "name": pod.owner_name,
                "uid": pod.owner_uid,
            }
        ],
        "resourceVersion": str(resource_version),
        "uid": pod.uid,
    }
    if pod.annotations:
        metadata["annotations"] = dict(pod.annotations)
    deletion = pod.deletion_requested_at
    if deletion is not None and deletion <= at:
        metadata["deletionGracePeriodSeconds"] = DELETION_GRACE_S
        metadata["deletionTimestamp"] = iso_z(deletion + dt.timedelta(seconds=DELETION_GRACE_S))
    resources = {
        "cpu": str(pod.cpu * pod.count),
        "memory": f"{pod.memory_gi * pod.count}Gi",
        pod.resource: str(pod.count),
    }
    spec: dict[str, object] = {
        "containers": [
            {
                "image": pod.image,
                "imagePullPolicy": "IfNotPresent",
                "name": pod.container,
                "resources": {"limits": resources, "requests": dict(resources)},
            }
        ],
        "priority": 0,
        "restartPolicy": "Never" if pod.owner_kind == "Job" else "Always",
        "schedulerName": "default-scheduler",
        "serviceAccountName": "default",
        "terminationGracePeriodSeconds": DELETION_GRACE_S,
        "tolerations": [{"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}],
    }
    if pod.pinned and pod.node is not None:
        spec["nodeSelector"] = {"kubernetes.io/hostname": pod.node}
    if pod.scheduled_at is not None and pod.scheduled_at <= at:
        spec["nodeName"] = pod.node
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": spec,
        "status": pod_status(pod, at),
    }


def pod_changes(pod: KubePod, cut: dt.datetime) -> list[tuple[dt.datetime, str]]:
    """(time, watch event type) of every change of the pod up to `cut`."""
    changes = [(pod.created_at, "ADDED")]
    scheduled, started, finished = pod.scheduled_at, pod.started_at, pod.finished_at
    if scheduled is not None and scheduled > pod.created_at:
        changes.append((scheduled, "MODIFIED"))
    if started is not None:
        changes.append((started, "MODIFIED"))
    deletion = pod.deletion_requested_at
    if deletion is not None:
        changes.append((deletion, "MODIFIED"))
    if finished is not None:
        changes.append((finished, "DELETED" if pod.ending == "Deleted" else "MODIFIED"))
    return [(at, kind) for at, kind in changes if at <= cut]


def is_listed(pod: KubePod, cut: dt.datetime) -> bool:
    """Whether `kubectl get pods` at `cut` still shows the pod."""
    finished = pod.finished_at
    if finished is None or finished > cut:
        return True
    return pod.ending != "Deleted" and cut - finished <= JOB_POD_TTL


def peak_usage(pods: Iterable[KubePod], cut: dt.datetime) -> dict[tuple[str, str], int]:
    """Per (namespace, resource): the most devices its pods held at once up to `cut`, pods
    not yet bound at `cut` counted as holding theirs then (a quota counts Pending pods)."""
    deltas: dict[tuple[str, str], list[tuple[dt.datetime, int]]] = {}
    for pod in pods:
        key = (pod.namespace, pod.resource)
        start = pod.scheduled_at or cut
        finished = pod.finished_at
        end = finished if finished is not None and finished <= cut else cut + dt.timedelta(1)
        deltas.setdefault(key, []).extend(((start, pod.count), (end, -pod.count)))
    peaks = {}
    for key, changes in deltas.items():
        held = peak = 0
        for _, change in sorted(changes):
            held += change
            peak = max(peak, held)
        peaks[key] = peak
    return peaks


class ResourceVersions:
    """The API server's resourceVersion counter."""

    def __init__(self, first: int) -> None:
        self.last = first

    def next(self) -> int:
        self.last += 1
        return self.last


def kubectl_watch(
    pods: Sequence[KubePod], window: Window, versions: ResourceVersions
) -> tuple[str, dict[str, int]]:
    """The month's pod watch events, one `{type, object}` per line in time order (what
    `kubectl get pods -A -w -o json --output-watch-events` records), and each pod's last
    resourceVersion."""
    cut = window.extracted_at
    changes = sorted(
        (
            (at, order, kind, pod)
            for pod in pods
            for order, (at, kind) in enumerate(pod_changes(pod, cut))
        ),
        key=lambda change: (change[0], change[3].uid, change[1]),
    )
    lines, last = [], {}
    for at, _, kind, pod in changes:
        version = versions.next()
        last[pod.uid] = version
        event = {"object": pod_object(pod, at, version), "type": kind}
        lines.append(json.dumps(event, separators=(",", ":"), sort_keys=True))
    return "\n".join(lines) + "\n", last


def namespace_object(
    name: str, labels: Iterable[tuple[str, str]], created: dt.datetime, uid: str, version: int
) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "creationTimestamp": iso_z(created),
            "labels": {"kubernetes.io/metadata.name": name, **dict(labels)},
            "name": name,
            "resourceVersion": str(version),
            "uid": uid,
        },
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }


def quota_object(
    namespace: KubeNamespace,
    hard: dict[str, int],
    used: dict[str, int],
    created: dt.datetime,
    uid: str,
    version: int,
) -> dict[str, object]:
    limits = {f"requests.{resource}": str(count) for resource, count in sorted(hard.items())}
    in_use = {f"requests.{resource}": str(used.get(resource, 0)) for resource in sorted(hard)}
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {
            "creationTimestamp": iso_z(created),
            "name": "gpu-quota",
            "namespace": namespace.name,
            "resourceVersion": str(version),
            "uid": uid,
        },
        "spec": {"hard": limits},
        "status": {"hard": dict(limits), "used": in_use},
    }


def node_object(
    node: KubeNode | None, name: str, created: dt.datetime, uid: str, version: int
) -> dict[str, object]:
    """A node with the labels GPU feature discovery puts on it (no GPUs: the control plane)."""
    labels = {
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
    }
    resources = {"cpu": "128", "memory": "2113407940Ki", "pods": "110"}
    spec: dict[str, object] = {}
    if node is None:
        labels["node-role.kubernetes.io/control-plane"] = ""
        resources = {"cpu": "16", "memory": "65842392Ki", "pods": "110"}
        spec["taints"] = [{"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"}]
    else:
        labels |= {
            "nvidia.com/gpu.count": str(node.gpus),
            "nvidia.com/gpu.memory": str(node.memory_mib),
            "nvidia.com/gpu.present": "true",
            "nvidia.com/gpu.product": node.product,
            "nvidia.com/gpu.replicas": str(
                TIMESLICE_REPLICAS if node.sharing == "timeslice" else 1
            ),
            "nvidia.com/gpu.sharing-strategy": "time-slicing"
            if node.sharing == "timeslice"
            else "none",
            "nvidia.com/mig.capable": str(node.gpu_model != L4_MODEL).lower(),
            "nvidia.com/mig.strategy": "mixed" if node.sharing == "mig" else "single",
        }
        if node.sharing == "mig":
            labels |= {
                "nvidia.com/mig.config": "all-balanced",
                "nvidia.com/mig.config.state": "success",
            }
            resources[GPU_RESOURCE] = "0"
        resources |= {resource: str(count) for resource, count in node.capacity().items()}
    allocatable = dict(resources)
    allocatable["cpu"] = f"{int(resources['cpu']) * 1000 - 500}m"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "creationTimestamp": iso_z(created),
            "labels": labels,
            "name": name,
            "resourceVersion": str(version),
            "uid": uid,
        },
        "spec": spec,
        "status": {
            "addresses": [{"address": name, "type": "Hostname"}],
            "allocatable": allocatable,
            "capacity": resources,
            "nodeInfo": {
                "architecture": "amd64",
                "containerRuntimeVersion": "containerd://1.7.22",
                "kernelVersion": "5.15.0-122-generic",
                "kubeletVersion": "v1.31.2",
                "operatingSystem": "linux",
                "osImage": "Ubuntu 22.04.5 LTS",
            },
        },
    }


def daemon_pod_object(
    rng: random.Random, daemon: str, image: str, node: KubeNode, started: dt.datetime, version: int
) -> dict[str, object]:
    """A GPU operator DaemonSet's pod on a GPU node: no GPU requests (lands no rows)."""
    name = f"{daemon}-{k8s_suffix(rng, 5)}"
    container_id = random_hex(rng, 64)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "creationTimestamp": iso_z(started),
            "labels": {"app": daemon},
            "name": name,
            "namespace": "gpu-operator",
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "blockOwnerDeletion": True,
                    "controller": True,
                    "kind": "DaemonSet",
                    "name": daemon,
                    "uid": random_uuid(rng),
                }
            ],
            "resourceVersion": str(version),
            "uid": random_uuid(rng),
        },
        "spec": {
            "containers": [
                {
                    "image": image,
                    "name": daemon,
                    "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                }
            ],
            "nodeName": node.name,
            "restartPolicy": "Always",
        },
        "status": {
            "conditions": [_condition("Ready", True, started)],
            "containerStatuses": [
                {
                    "containerID": f"containerd://{container_id}",
                    "image": image,
                    "name": daemon,
                    "ready": True,
                    "restartCount": 0,
                    "started": True,
                    "state": {"running": {"startedAt": iso_z(started)}},
                }
            ],
            "hostIP": node.address,
            "phase": "Running",
            "qosClass": "Burstable",
            "startTime": iso_z(started),
        },
    }


def kubectl_list(
    rng: random.Random,
    pods: Sequence[KubePod],
    window: Window,
    versions: ResourceVersions,
    last_versions: dict[str, int],
) -> str:
    """`kubectl get pods,namespaces,resourcequotas,nodes -A -o json` at the extraction."""
    cut = window.extracted_at
    since = fleet_since(window)
    items: list[dict[str, object]] = []
    for number, node in enumerate(KUBE_NODES):
        started = since + dt.timedelta(days=60 + number, hours=1)
        for daemon, image in (
            ("nvidia-device-plugin-daemonset", "nvcr.io/nvidia/k8s-device-plugin:v0.16.2"),
            ("nvidia-dcgm-exporter", "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.8-3.6.0-ubuntu22.04"),
        ):
            items.append(daemon_pod_object(rng, daemon, image, node, started, versions.next()))
    for pod in pods:
        if is_listed(pod, cut):
            items.append(pod_object(pod, cut, last_versions.get(pod.uid) or versions.next()))
    created_namespaces = since + dt.timedelta(days=59)
    for name in SYSTEM_NAMESPACES:
        items.append(
            namespace_object(name, (), created_namespaces, random_uuid(rng), versions.next())
        )
    for number, namespace in enumerate(KUBE_NAMESPACES):
        created = since + dt.timedelta(days=120 + 9 * number, hours=10)
        items.append(
            namespace_object(
                namespace.name, namespace.labels, created, random_uuid(rng), versions.next()
            )
        )
    peaks = peak_usage(pods, cut)
    for number, namespace in enumerate(KUBE_NAMESPACES):
        hard = {
            resource: max(count, peaks.get((namespace.name, resource), 0))
            for resource, count in namespace.quota
        }
        used: dict[str, int] = collections.Counter()
        for pod in pods:
            finished = pod.finished_at
            if pod.namespace == namespace.name and (finished is None or finished > cut):
                used[pod.resource] += pod.count
        created = since + dt.timedelta(days=120 + 9 * number, hours=10, minutes=1)
        items.append(
            quota_object(namespace, hard, used, created, random_uuid(rng), versions.next())
        )
    for number, node in enumerate((None, *KUBE_NODES)):
        name = CONTROL_PLANE if node is None else node.name
        created = since + dt.timedelta(days=59, minutes=10 * number)
        items.append(node_object(node, name, created, random_uuid(rng), versions.next()))
    document = {
        "apiVersion": "v1",
        "items": items,
        "kind": "List",
        "metadata": {"resourceVersion": ""},
    }
    return json.dumps(document, indent=4, sort_keys=True) + "\n"


# ---------------------------------------------------------------- vGPU host

VGPU_HOST = "hv-a100-01"
# The vGPU type of each physical GPU (one type per GPU): type id, framebuffer GiB.
VGPU_GPU_TYPES = ("A100D-40C", "A100D-40C", "A100D-20C", "A100D-20C")
VGPU_TYPES = {"A100D-40C": (560, 40), "A100D-20C": (559, 20)}
VGPU_POLL = dt.timedelta(hours=1)


@dataclass(frozen=True)
class VirtualMachine:
    """A VM holding one vGPU of `gpu_index`'s type from `start` until `end` (offsets from
    the period start; end None: still running at the extraction)."""

    vm_id: str
    vm_id_type: str  # uuid or domain_id
    gpu_index: int
    start: dt.timedelta
    end: dt.timedelta | None


# The UUID VMs are owned in policy/demo/ownership.csv (scope vm): the first three by ember,
# the next three by cirrus. The last one is known only by its domain id: nobody owns it.
VIRTUAL_MACHINES = (
    VirtualMachine("4d7e2f10-8c3a-4b6e-9f21-6a5c0e3b7d19", "uuid", 0, -dt.timedelta(days=40), None),
    VirtualMachine(
        "a3c95e42-1f6d-4e0b-8d7a-2c4f9b6e1a58",
        "uuid",
        0,
        dt.timedelta(days=2, hours=9),
        dt.timedelta(days=19, hours=17),
    ),
    VirtualMachine(
        "e81b04c7-5d2a-4f93-b6c8-9e0d3a7f2b64",
        "uuid",
        2,
        dt.timedelta(days=4, hours=8),
        dt.timedelta(days=24, hours=12),
    ),
    VirtualMachine("7c2f9a61-3e8b-4d05-a9e4-1b6d8c0f5e27", "uuid", 1, -dt.timedelta(days=16), None),
    VirtualMachine(
        "b5e0d7a3-6c19-4f82-8e3b-4a7f2d9c1e06", "uuid", 2, dt.timedelta(days=9, hours=8), None
    ),
    VirtualMachine(
        "0f6a3c8e-9d24-4b71-a5e0-7c3b1f8d2a95",
        "uuid",
        3,
        dt.timedelta(days=21, hours=10),
        dt.timedelta(days=28, hours=18),
    ),
    VirtualMachine(
        "17", "domain_id", 3, dt.timedelta(days=11, hours=14), dt.timedelta(days=13, hours=10)
    ),
)


def vgpu_jsonl(rng: random.Random, window: Window, gpu_uuids: Sequence[str]) -> str:
    """The host sampler's records of `VGPU_HOST`, polled every VGPU_POLL from the day before
    the period to the extraction: one `host_gpu` record per GPU and poll, one `vgpu` record
    per active vGPU."""
    instances = {
        vm.vm_id: (10 * (vm.gpu_index + 1) + n, random_uuid(rng))
        for n, vm in enumerate(VIRTUAL_MACHINES)
    }
    lines = []
    start = window.period_start - dt.timedelta(days=1)
    for poll in ticks(start, window.extracted_at, VGPU_POLL):
        offset = poll - window.period_start
        for gpu, gpu_uuid_ in enumerate(gpu_uuids):
            active = [
                vm
                for vm in VIRTUAL_MACHINES
                if vm.gpu_index == gpu
                and vm.start <= offset
                and (vm.end is None or offset < vm.end)
            ]
            common = {
                "host": VGPU_HOST,
                "sampled_at": iso_us(poll),
                "interval_seconds": VGPU_POLL.total_seconds(),
                "gpu_uuid": gpu_uuid_,
                "gpu_index": gpu,
                "gpu_name": A100_MODEL,
            }
            lines.append(
                json_line(
                    {
                        "record_type": "host_gpu",
                        **common,
                        "active_vgpu_count": len(active),
                        "null_reasons": {},
                        "error": None,
                    }
                )
            )
            vgpu_type = VGPU_GPU_TYPES[gpu]
            type_id, framebuffer_gib = VGPU_TYPES[vgpu_type]
            for vm in active:
                instance, vgpu_uuid = instances[vm.vm_id]
                busy = rng.random() < 0.3 * office_factor(poll)
                sm = round(rng.uniform(35, 97) if busy else rng.uniform(0, 6), 1)
                record = {
                    "record_type": "vgpu",
                    **common,
                    "vgpu_instance": instance,
                    "vgpu_uuid": vgpu_uuid,
                    "vm_id": vm.vm_id,
                    "vm_id_type": vm.vm_id_type,
                    "vgpu_type_id": type_id,
                    "vgpu_type_name": f"NVIDIA {vgpu_type}",
                    "fb_used_bytes": int(framebuffer_gib * 2**30 * rng.uniform(0.1, 0.85)),
                    "sm_util_percent": sm,
                    "mem_util_percent": round(sm * rng.uniform(0.3, 0.7), 1),
                    "enc_util_percent": 0.0,
                    "dec_util_percent": 0.0,
                    "util_sample_count": rng.randrange(300, 361),
                    "null_reasons": {},
                    "error": None,
                }
                lines.append(json_line(record))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- NVML sampler

NVML_HOSTS = ("hgx-h100-01", "dgx-a100-01", "k8s-h100-01", "k8s-l4-ts-01")
NVML_FROM = dt.timedelta(days=11)  # from the period start
NVML_SPAN = dt.timedelta(days=2)
NVML_STEP = dt.timedelta(minutes=15)
IDLE_MEMORY_BYTES = 536870912


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
        per_node = job.gpus // job.node_count
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
    start = window.period_start + NVML_FROM
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
    for poll in ticks(start, start + NVML_SPAN, NVML_STEP):
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
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- Prometheus

DCGM_FROM = dt.timedelta(days=11)  # from the period start
DCGM_SPAN = dt.timedelta(days=3)
DCGM_STEP = dt.timedelta(minutes=10)
DCGM_METRICS = ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_POWER_USAGE")
VLLM_STEP = dt.timedelta(minutes=15)
VLLM_METRICS = (
    "vllm:prompt_tokens_total",
    "vllm:generation_tokens_total",
    "vllm:request_success_total",
)
FINISHED_REASONS = ("stop", "length", "abort")

Series = dict[tuple[tuple[str, str], ...], list[list[object]]]


def prom_value(value: float) -> str:
    """A sample value as Prometheus's API writes it (shortest form, integers without .0)."""
    return str(int(value)) if float(value).is_integer() else repr(value)


def query_range(series: Series) -> str:
    """A `/api/v1/query_range` response of `series` (labels -> [[time, "value"], ...])."""
    result = [{"metric": dict(labels), "values": values} for labels, values in series.items()]
    return (
        json_line({"status": "success", "data": {"resultType": "matrix", "result": result}}) + "\n"
    )


def _add_point(series: Series, labels: dict[str, str], at: int, value: float) -> None:
    series.setdefault(tuple(sorted(labels.items())), []).append([at, prom_value(value)])


def _workload_labels(holding: Holding | None) -> dict[str, str]:
    """dcgm-exporter's pod mapping: the pod holding the device, while one does."""
    if holding is None or not isinstance(holding.owner, KubePod):
        return {}
    pod = holding.owner
    return {"container": pod.container, "namespace": pod.namespace, "pod": pod.name}


def dcgm_responses(
    rng: random.Random, window: Window, uuids: dict[str, list[str]], holdings: dict[Slot, Timeline]
) -> dict[str, str]:
    """One query_range response per DCGM metric for the Kubernetes GPUs, DCGM_STEP apart:
    whole GPUs and the time-sliced L4s per GPU, the MIG node per GPU instance (power is the
    GPU's, repeated on each of its instances, as dcgm-exporter reports it)."""
    series: dict[str, Series] = {metric: {} for metric in DCGM_METRICS}
    start = window.period_start + DCGM_FROM
    gr_active, fb_used, power = (series[metric] for metric in DCGM_METRICS)
    for poll in ticks(start, start + DCGM_SPAN, DCGM_STEP):
        at = epoch_seconds(poll)
        for node in KUBE_NODES:
            idle_watts, max_watts = POWER_WATTS[node.gpu_model]
            for gpu in range(node.gpus):
                labels = {
                    "DCGM_FI_DRIVER_VERSION": "550.90.07",
                    "Hostname": node.name,
                    "UUID": uuids[node.name][gpu],
                    "device": f"nvidia{gpu}",
                    "gpu": str(gpu),
                    "instance": f"{node.address}:9400",
                    "job": "nvidia-dcgm-exporter",
                    "modelName": node.gpu_model,
                }
                slots = [slot for slot in node.slots() if slot.gpu_index == gpu]
                held = [
                    (slot, holdings[slot].at(poll) if slot in holdings else None) for slot in slots
                ]
                if node.sharing == "mig":
                    rows = []
                    for slot, holding in held:
                        profile = slot.resource.removeprefix("nvidia.com/mig-")
                        active = rng.uniform(0.25, 0.95) if holding else 0.0
                        memory = MIG_MEMORY_MIB[profile] * rng.uniform(0.2, 0.9) if holding else 0
                        instance = {"GPU_I_ID": str(slot.instance), "GPU_I_PROFILE": profile}
                        rows.append((labels | instance | _workload_labels(holding), active, memory))
                    load = sum(row[1] * MIG_SLICES[row[0]["GPU_I_PROFILE"]] / 7 for row in rows)
                else:
                    users = [holding for _, holding in held if holding is not None]
                    active = min(1.0, sum(rng.uniform(0.3, 0.95) for _ in users))
                    memory = node.memory_mib * min(0.95, 0.3 * len(users)) if users else 0
                    shown = users[0] if node.sharing == "whole" and users else None
                    rows = [(labels | _workload_labels(shown), active, memory)]
                    load = active
                watts = idle_watts + (max_watts - idle_watts) * load * rng.uniform(0.85, 1.0)
                for row_labels, active, memory in rows:
                    _add_point(
                        gr_active, row_labels | {"__name__": DCGM_METRICS[0]}, at, round(active, 4)
                    )
                    _add_point(fb_used, row_labels | {"__name__": DCGM_METRICS[1]}, at, int(memory))
                    _add_point(
                        power, row_labels | {"__name__": DCGM_METRICS[2]}, at, round(watts, 3)
                    )
    return {metric: query_range(found) for metric, found in series.items()}


def vllm_responses(
    window: Window, servers: Sequence[KubePod], requests: Sequence[GatewayRequest]
) -> dict[str, str]:
    """query_range responses of the shared model server's vLLM counters over the period,
    VLLM_STEP apart: one series per server pod (a redeployed pod counts from 0 again), the
    requests it served counted when they finished."""
    served: dict[str, list[GatewayRequest]] = {}
    for request in requests:
        if request.server is not None and request.finished_reason is not None:
            served.setdefault(request.server.uid, []).append(request)
    series: dict[str, Series] = {metric: {} for metric in VLLM_METRICS}
    polls = ticks(window.period_start, window.period_end, VLLM_STEP)
    for pod in servers:
        started, finished = pod.started_at, pod.finished_at
        if started is None:
            continue
        done = sorted(served.get(pod.uid, []), key=lambda r: r.finished_at)
        ends = [r.finished_at for r in done]
        labels = {
            "engine": "0",
            "instance": f"{pod.ip}:8000",
            "job": "vllm",
            "model_name": SERVED_MODEL,
            "namespace": pod.namespace,
            "pod": pod.name,
        }
        for poll in polls:
            if poll < started or (finished is not None and poll >= finished):
                continue
            counted = done[: bisect.bisect_right(ends, poll)]
            at = epoch_seconds(poll)
            prompt = sum(r.input_tokens for r in counted)
            generated = sum(r.output_tokens for r in counted)
            _add_point(series[VLLM_METRICS[0]], labels | {"__name__": VLLM_METRICS[0]}, at, prompt)
            _add_point(
                series[VLLM_METRICS[1]], labels | {"__name__": VLLM_METRICS[1]}, at, generated
            )
            for reason in FINISHED_REASONS:
                finished_count = sum(1 for r in counted if r.finished_reason == reason)
                reason_labels = labels | {"__name__": VLLM_METRICS[2], "finished_reason": reason}
                _add_point(series[VLLM_METRICS[2]], reason_labels, at, finished_count)
    return {metric: query_range(found) for metric, found in series.items()}


# ---------------------------------------------------------------- gateway requests

ENDPOINT = "chat-shared"
SERVED_MODEL = "llama-3-70b"
REQUEST_TENANTS = (("atlas", 0.4), ("cirrus", 0.35), ("ember", 0.25))
REQUESTS_PER_DAY = 100.0
MAX_TOKENS = 1024
USER_AGENTS = ("openai-python/1.51.0", "langchain-openai/0.2.3", "curl/8.5.0")


@dataclass(frozen=True)
class GatewayRequest:
    """One request to ENDPOINT as the gateway logged it; `server` is the model server pod it
    was routed to (None: none was up) and `finished_reason` vLLM's word on it (None: it
    never reached the server)."""

    request_id: str
    tenant_id: str
    input_tokens: int
    output_tokens: int
    outcome: str
    status_code: int
    started_at: dt.datetime
    finished_at: dt.datetime
    finished_reason: str | None
    server: KubePod | None
    user_agent: str


def gateway_requests(
    rng: random.Random, window: Window, servers: Sequence[KubePod]
) -> list[GatewayRequest]:
    """The period's requests to ENDPOINT: mostly served; some rejected by the gateway
    (rate limit), failed, timed out or cancelled by the caller; errors while no server pod
    was up (between a pod's deletion and its successor's start)."""
    up = Timeline.of(
        Holding(pod.started_at, pod.finished_at, pod)
        for pod in servers
        if pod.started_at is not None
    )
    requests = []
    arrivals = poisson_times(rng, REQUESTS_PER_DAY, window.period_start, window.period_end, True)
    for number, arrival in enumerate(arrivals):
        started = arrival + dt.timedelta(milliseconds=rng.randrange(1000))
        tenant = weighted(rng, REQUEST_TENANTS)
        prompt = int(log_uniform(rng, 40, 6000))
        wanted = int(log_uniform(rng, 8, 1600))
        serving = up.at(started)
        server = (
            serving.owner if serving is not None and isinstance(serving.owner, KubePod) else None
        )
        draw = rng.random()
        output, reason = 0, "abort"
        if server is None:
            outcome, status, seconds, reason = "error", 503, rng.uniform(0.002, 0.02), None
        elif draw < 0.01:
            outcome, status, seconds, reason = "rejected", 429, rng.uniform(0.002, 0.006), None
        elif draw < 0.025:
            outcome, status, seconds = "error", 500, rng.uniform(0.2, 2.0)
        elif draw < 0.035:
            output = int(wanted * rng.uniform(0.2, 0.8))
            outcome, status, seconds = "timeout", 504, 60.0
        elif draw < 0.055:
            output = int(wanted * rng.uniform(0.0, 0.6))
            outcome, status, seconds = "cancelled", 499, 0.2 + output * 0.028
        else:
            output = min(wanted, MAX_TOKENS)
            reason = "length" if wanted >= MAX_TOKENS else "stop"
            seconds = 0.15 + prompt * 0.00004 + output * 0.028 * rng.uniform(0.8, 1.3)
            outcome, status = "success", 200
        requests.append(
            GatewayRequest(
                request_id=f"req-{started:%Y%m%d}-{number:05d}",
                tenant_id=tenant,
                input_tokens=prompt,
                output_tokens=output,
                outcome=outcome,
                status_code=status,
                started_at=started,
                finished_at=started + dt.timedelta(milliseconds=int(seconds * 1000)),
                finished_reason=reason,
                server=server,
                user_agent=rng.choice(USER_AGENTS),
            )
        )
    return requests


def requests_jsonl(requests: Sequence[GatewayRequest]) -> str:
    lines = [
        json.dumps(
            {
                "request_id": r.request_id,
                "tenant_id": r.tenant_id,
                "endpoint": ENDPOINT,
                "model": SERVED_MODEL,
                "input_tokens": r.input_tokens,
                "output_tokens": r.output_tokens,
                "outcome": r.outcome,
                "started_at": iso_ms(r.started_at),
                "finished_at": iso_ms(r.finished_at),
                "status_code": r.status_code,
                "user_agent": r.user_agent,
            }
        )
        for r in requests
    ]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- files


def other_nodes(window: Window) -> tuple[Node, ...]:
    """The Kubernetes nodes and the vGPU host (listed in the inventory after the Slurm nodes)."""
    since = fleet_since(window)
    nodes = [Node(n.name, n.gpu_model, GPU_CLASSES[n.gpu_model], since, n.gpus) for n in KUBE_NODES]
    return (*nodes, Node(VGPU_HOST, A100_MODEL, "a100", since, len(VGPU_GPU_TYPES)))


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


def write_file(out_dir: Path, name: str, text: str, modified: dt.datetime) -> Path:
    """Write `text` to `out_dir/name`, its modification time `modified` (UTC)."""
    path = out_dir / name
    path.write_text(text, encoding="utf-8")
    seconds = (modified - EPOCH).total_seconds()
    os.utime(path, (seconds, seconds))
    return path


def generate(out_dir: Path, period: str = "2026-10", seed: int = 7) -> DemoFiles:
    """Write every source's files for `period` into `out_dir` (see the module doc)."""
    window = make_window(period)
    fleet = make_fleet(window)
    rng = random.Random(seed)
    jobs = build_workload(rng, window)
    placements = schedule(jobs, fleet, window.extracted_at)
    weekly = sacct_files(rng, jobs, placements, window)
    inventory = inventory_rows((*fleet, *other_nodes(window)), seed)
    uuids = uuids_by_node(inventory)
    pods = kubernetes_workload(random.Random(f"{seed}-kubernetes"), window)
    holdings = pod_holdings(pods, window.extracted_at)
    servers = [pod for pod in pods if ("app", CHAT_DEPLOYMENT) in pod.labels]
    requests = gateway_requests(random.Random(f"{seed}-requests"), window, servers)
    versions = ResourceVersions(48_000_000)
    watch, last_versions = kubectl_watch(pods, window, versions)
    listing = kubectl_list(
        random.Random(f"{seed}-kubernetes-list"), pods, window, versions, last_versions
    )
    vgpu = vgpu_jsonl(random.Random(f"{seed}-vgpu"), window, uuids[VGPU_HOST])
    prometheus = dcgm_responses(random.Random(f"{seed}-dcgm"), window, uuids, holdings)
    prometheus |= vllm_responses(window, servers, requests)

    out_dir.mkdir(parents=True, exist_ok=True)

    def write(name: str, text: str) -> Path:
        return write_file(out_dir, name, text, window.extracted_at)

    rows = [",".join(INVENTORY_COLUMNS)] + [",".join(row) for row in inventory]
    nvml = nvml_files(seed, window, uuids, (jobs, placements), holdings)
    return DemoFiles(
        inventory=write("inventory.csv", "\n".join(rows) + "\n"),
        sacct_files=tuple(write(name, "\n".join(lines) + "\n") for name, lines in weekly.items()),
        kubernetes_files=(
            write("kubectl-get-pods-watch.jsonl", watch),
            write("kubectl-get-pods-namespaces-resourcequotas-nodes.json", listing),
        ),
        vgpu_files=(write(f"vgpu-{VGPU_HOST}.jsonl", vgpu),),
        nvml_files=tuple(write(name, text) for name, text in nvml.items()),
        prometheus_files=tuple(
            write(f"prometheus-{metric.replace(':', '_')}.json", text)
            for metric, text in prometheus.items()
        ),
        request_files=(write(f"gateway-{ENDPOINT}-{period}.jsonl", requests_jsonl(requests)),),
    )
