"""The Slurm cluster's jobs: each workload stream's arrivals and shapes, boreal's serving
chain, the anchor jobs that pin the demo's edge cases, and the unmapped accounts' share,
with sacct's job ids; every job's fate (runtime, end state) is decided at submission."""

from __future__ import annotations

import datetime as dt
import functools
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from gpuledger.demo.common import (
    HOUR,
    OFFICE_PEAK,
    log_uniform,
    office_factor,
    thinned_arrivals,
    weighted,
)
from gpuledger.demo.constants import ARRAY_SWEEP_AT, GPUS_PER_NODE, NLP_SHARED_HANDOVER, Window
from gpuledger.demo.slurm.streams import (
    ATLAS,
    CIRRUS,
    DELTA,
    SERVING,
    STREAMS,
    UNMAPPED_STREAMS,
    Stream,
    User,
)

UNATTRIBUTED_TARGET_SHARE = 0.01
TIMELIMITS_H = (1, 2, 4, 8, 12, 24, 48, 72)


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

    @property
    def gpus_per_node(self) -> int:
        return self.gpus // self.node_count

    @property
    def mem_per_node_mb(self) -> int:
        return self.gpus_per_node * self.mem_per_gpu_mb


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
        runtime_s = log_uniform(rng, *stream.runtime_h) * HOUR
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
    if stream.active is not None:
        since, until = stream.active
        if not window.at(since) <= t < window.at(until):
            return 0.0
    factor = 1.0
    for since, phase_factor in stream.phases:
        if t >= window.at(since):
            factor = phase_factor
    if any(lo <= t < hi for lo, hi in bursts):
        factor *= stream.burst_factor
    if stream.diurnal:
        factor *= office_factor(t)
    return factor


def arrivals(rng: random.Random, stream: Stream, window: Window) -> list[dt.datetime]:
    """Submit times of a non-homogeneous Poisson process, by thinning."""
    bursts = burst_windows(rng, stream, window)
    peak = max([1.0, *(f for _, f in stream.phases)]) * max(1.0, stream.burst_factor) * OFFICE_PEAK
    factor = functools.partial(rate_factor, stream, window, bursts)
    return thinned_arrivals(
        rng, stream.jobs_per_day, window.first_submit, window.extracted_at, factor, peak
    )


def stream_jobs(rng: random.Random, stream: Stream, window: Window) -> list[Job]:
    handover = window.at(NLP_SHARED_HANDOVER)
    jobs = []
    for submit in arrivals(rng, stream, window):
        users = stream.users
        if stream.account == "nlp-shared":
            users = tuple(u for u in users if (u.group == "atlas") == (submit < handover))
        jobs.append(make_job(rng, stream, submit, rng.choice(users)))
    return jobs


def serving_chain(rng: random.Random, window: Window, slots: int = 4) -> list[Job]:
    """boreal-serve: `slots` 4-GPU model servers redeployed back to back, about daily."""
    jobs = []
    for _ in range(slots):
        t = window.first_submit + dt.timedelta(seconds=rng.randrange(0, 2 * HOUR))
        while t < window.extracted_at:
            job = make_job(rng, SERVING, t, SERVING.users[0], gpus=4)
            jobs.append(job)
            t += dt.timedelta(seconds=job.runtime_s + rng.randrange(60, 40 * 60))
    return jobs


def anchor_jobs(rng: random.Random, window: Window) -> list[Job]:
    """Jobs that pin the demo's edge cases regardless of what the streams drew."""
    by_account = {s.account: s for s in STREAMS}
    ps, pe = window.period_start, window.period_end
    handover = window.at(NLP_SHARED_HANDOVER)
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
    sweep_at = window.at(ARRAY_SWEEP_AT)
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
    candidates = [j for s in UNMAPPED_STREAMS for j in stream_jobs(rng, s, window)]
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


def build_workload(rng: random.Random, window: Window) -> list[Job]:
    """Every job of the window, ids assigned, in submit order."""
    main = serving_chain(rng, window) + anchor_jobs(rng, window)
    for stream in STREAMS:
        main += stream_jobs(rng, stream, window)
    return assign_ids(main + unmapped_jobs(rng, window, main), first_id=741001)
