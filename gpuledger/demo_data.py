"""A demo fleet month: a CMDB inventory and the Slurm accounting of a simulated GPU cluster.

`generate` writes what `gpuledger demo` ingests: `inventory.csv` (the CMDB export) and one
`sacct --parsable2 --noheader` file per ISO week, in the Open XDMoD 26-field list. The
workload is built to exercise every path of the ledgers against `policy/demo/`:

- a fleet of 8 H100 nodes and 4 A100 nodes (8 GPUs each); `dgx-a100-04` enters service on
  day 8 of the period, so capacity changes mid-month;
- boreal's serving jobs hold about its 16-GPU reservation all month, and its batch jobs
  burst above it (borrowed hours); atlas trains in campaigns that exceed its reservation;
- jobs cross both month boundaries, the `nlp-shared` account changes owner mid-month
  (`NLP_SHARED_HANDOVER`) with a job spanning the handover, and the unmapped accounts
  `scratch` and `hackathon` hold about 1% of the month's GPU-hours (unattributed usage);
- every end state sacct reports, step rows, an array job, and jobs still running or pending
  when the accounting was extracted.

Jobs go through a small scheduler (queue by priority then eligibility, best-fit placement,
node draining for jobs waiting too long), so allocations never exceed a node's 8 GPUs.
Everything is drawn from `random.Random(seed)`: the same seed writes the same bytes.
"""

from __future__ import annotations

import bisect
import datetime as dt
import heapq
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

CLUSTER = "demo"
GPUS_PER_NODE = 8
SACCT_FIELDS = (
    "jobid",
    "jobidraw",
    "cluster",
    "partition",
    "qos",
    "account",
    "group",
    "gid",
    "user",
    "uid",
    "submit",
    "eligible",
    "start",
    "end",
    "elapsed",
    "exitcode",
    "state",
    "nnodes",
    "ncpus",
    "reqcpus",
    "reqmem",
    "reqtres",
    "alloctres",
    "timelimit",
    "nodelist",
    "jobname",
)
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
    """What `generate` wrote: the CMDB inventory and the weekly sacct files, oldest first."""

    inventory: Path
    sacct_files: tuple[Path, ...]


@dataclass(frozen=True)
class Node:
    name: str
    gpu_model: str
    gpu_class: str
    in_service_from: dt.datetime


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


def make_fleet(window: Window) -> tuple[Node, ...]:
    fleet_from = dt.datetime(window.period_start.year - 1, 1, 1)
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
    rng = random.Random(f"{seed}-inventory")
    return [
        (gpu_uuid(rng), node.name, node.gpu_model, node.gpu_class, iso_z(node.in_service_from), "")
        for node in fleet
        for _ in range(GPUS_PER_NODE)
    ]


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
        working = t.weekday() < 5 and 8 <= t.hour < 19
        factor *= 1.6 if working else 0.5
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
    return "|".join(values.get(field, "") for field in SACCT_FIELDS)


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


# ---------------------------------------------------------------- files


def generate(out_dir: Path, period: str = "2026-10", seed: int = 7) -> DemoFiles:
    """Write the demo fleet's inventory and weekly sacct files for `period` into `out_dir`."""
    window = make_window(period)
    fleet = make_fleet(window)
    rng = random.Random(seed)
    jobs = build_workload(rng, window)
    placements = schedule(jobs, fleet, window.extracted_at)
    weekly = sacct_files(rng, jobs, placements, window)
    out_dir.mkdir(parents=True, exist_ok=True)
    inventory = out_dir / "inventory.csv"
    rows = [",".join(INVENTORY_COLUMNS)] + [",".join(r) for r in inventory_rows(fleet, seed)]
    inventory.write_text("\n".join(rows) + "\n", encoding="utf-8")
    written = []
    for name, lines in weekly.items():
        path = out_dir / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        written.append(path)
    return DemoFiles(inventory=inventory, sacct_files=tuple(written))
