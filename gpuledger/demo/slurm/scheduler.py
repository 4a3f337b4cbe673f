"""The Slurm cluster's scheduler: queue by priority then eligibility, best fit, and drain
nodes for a job waiting too long, so that allocations never exceed a node's GPUs."""

from __future__ import annotations

import bisect
import datetime as dt
import heapq
from collections.abc import Sequence
from dataclasses import dataclass

from gpuledger.demo.common import dispatch, instants
from gpuledger.demo.constants import GPUS_PER_NODE
from gpuledger.demo.inventory import Node
from gpuledger.demo.slurm.jobs import Job

DRAIN_AFTER = dt.timedelta(hours=6)


@dataclass(frozen=True)
class Placement:
    start: dt.datetime
    nodes: tuple[str, ...]


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

    def place(index: int, now: dt.datetime, drained: set[str]) -> bool:
        job = jobs[index]
        candidates = [
            n for n in by_class[job.gpu_class] if n.in_service_from <= now and n.name not in drained
        ]
        nodes = _fit(job, candidates, free)
        if nodes is None:
            if now - job.eligible >= DRAIN_AFTER:
                drained.update(_drain(job, candidates, free))
            return False
        per_node = job.gpus // len(nodes)
        for name in nodes:
            free[name] -= per_node
        placements[job.raw_id] = Placement(now, nodes)
        end = len(jobs) + len(ends) + 1
        ends[end] = (nodes, per_node)
        heapq.heappush(events, (now + dt.timedelta(seconds=job.runtime_s), 0, end, end))
        return True

    for now, batch in instants(events, until):
        for _, kind, _, payload in batch:
            if kind == 0:
                nodes, gpus_per_node = ends[payload]
                for name in nodes:
                    free[name] += gpus_per_node
            elif kind == 2:  # kind 1, a node entering service, only needs a dispatch pass
                job = jobs[payload]
                bisect.insort(queue, ((-job.priority, job.eligible, job.raw_id), payload))
        dispatch(queue, now, place)
    return placements
