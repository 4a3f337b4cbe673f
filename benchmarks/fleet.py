"""The benchmark's fleet and its workload, which every source's generator reads.

`gpus / 8` nodes of 8 H100s: the first three quarters in the Slurm cluster, the rest
Kubernetes nodes (at least one of each from 16 GPUs on). Each node is cut into lanes of 4, 2,
1 and 1 GPUs that run work back to back inside each day, so no device is ever held twice
and no run crosses a day: a day's files hold that day's work. On Kubernetes the first lane of
the first node serves the shared model endpoint (one pod of the Deployment a day); the other
lanes run Job pods.

Every draw is a function of the seed and of the (day, node, lane) it is for, so a day reads
the same whichever days are generated around it (the daily run lands exactly the day the
month's run left out).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

GPUS_PER_NODE = 8
LANES = ((0, 4), (4, 2), (6, 1), (7, 1))  # (first GPU index, GPUs)
H100_MODEL = "NVIDIA H100 80GB HBM3"
GPU_CLASS = "h100"
TENANTS = tuple(f"t{i:02d}" for i in range(20))
ACCOUNTS = tuple(f"acct{i:02d}" for i in range(60))
UNMAPPED_SHARE = 0.005  # of runs, under an account or namespace no policy or label owns
SERVING_NAMESPACE = "ml-serving"
SERVING_PREFIX = "chat-llama70b-"
ENDPOINT = "chat-shared"
SERVED_MODEL = "llama-3-70b"
FIRST_DAY = dt.datetime(2026, 10, 1)
FLEET_SINCE = dt.datetime(2026, 1, 1)
EPOCH = dt.datetime(1970, 1, 1)
MAX_RUNS_PER_LANE_DAY = 360  # each run at least 2 minutes of its 4-minute slot


def day_seed(seed: int, *parts: object) -> random.Random:
    """A generator of its own for one part of one day (`"slurm", day, node, lane`)."""
    return random.Random("/".join(str(part) for part in (seed, *parts)))


def epoch_seconds(t: dt.datetime) -> int:
    return int((t - EPOCH).total_seconds())


@dataclass(frozen=True)
class Node:
    name: str
    index: int  # position in the fleet
    scheduler: str  # slurm | kubernetes
    address: str
    uuids: tuple[str, ...]


@dataclass(frozen=True)
class Run:
    """One job or pod: GPUs `first .. first + gpus - 1` of `node` held over [start, end)."""

    run_id: int
    node: Node
    first: int
    gpus: int
    start: dt.datetime
    end: dt.datetime
    owner: str  # Slurm account, or Kubernetes namespace
    state: str  # COMPLETED | FAILED (a Job pod: Succeeded | Failed)
    serving: bool = False

    @property
    def name(self) -> str:
        """The pod's name (Kubernetes)."""
        if self.serving:
            return f"{SERVING_PREFIX}{self.run_id:08x}-{self.run_id % 99991:05d}"
        return f"train-{self.run_id}-{self.run_id % 7919:04d}"

    @property
    def uid(self) -> str:
        return str(uuid.UUID(bytes=hashlib.md5(f"pod/{self.run_id}".encode()).digest()))


@dataclass(frozen=True)
class Fleet:
    seed: int
    nodes: tuple[Node, ...]
    runs_per_lane_day: int

    @property
    def slurm_nodes(self) -> tuple[Node, ...]:
        return tuple(n for n in self.nodes if n.scheduler == "slurm")

    @property
    def kubernetes_nodes(self) -> tuple[Node, ...]:
        return tuple(n for n in self.nodes if n.scheduler == "kubernetes")

    @property
    def gpus(self) -> int:
        return len(self.nodes) * GPUS_PER_NODE

    def runs(self, day: dt.datetime, node: Node) -> Iterator[Run]:
        """The node's runs of `day`, lane by lane, each lane's in time order."""
        ordinal = (day - FIRST_DAY).days
        per_day = len(self.nodes) * len(LANES) * self.runs_per_lane_day
        for lane, (first, size) in enumerate(LANES):
            base = 10_000 + ordinal * per_day
            base += (node.index * len(LANES) + lane) * self.runs_per_lane_day
            if lane == 0 and self.kubernetes_nodes[:1] == (node,):
                yield self._serving_run(base, day, node, first, size)
                continue
            yield from self._lane_runs(base, day, node, lane, first, size)

    def _lane_runs(
        self, base: int, day: dt.datetime, node: Node, lane: int, first: int, size: int
    ) -> Iterator[Run]:
        rng = day_seed(self.seed, "runs", day.date(), node.name, lane)
        count = self.runs_per_lane_day
        slot = 86400 // count
        owners = ACCOUNTS if node.scheduler == "slurm" else tuple(f"ns-{t}" for t in TENANTS)
        unmapped = "unmapped" if node.scheduler == "slurm" else "scratch"
        for number in range(count):
            slot_start = number * slot
            start = slot_start + int(rng.uniform(0.02, 0.1) * slot) + 10
            end = slot_start + slot - int(rng.uniform(0.02, 0.2) * slot) - 1
            owner = unmapped if rng.random() < UNMAPPED_SHARE else rng.choice(owners)
            state = "FAILED" if rng.random() < 0.05 else "COMPLETED"
            yield Run(
                base + number,
                node,
                first,
                size,
                day + dt.timedelta(seconds=start),
                day + dt.timedelta(seconds=max(end, start + 60)),
                owner,
                state,
            )

    @staticmethod
    def _serving_run(base: int, day: dt.datetime, node: Node, first: int, size: int) -> Run:
        """The day's model server pod: up from 20 s into the day to 30 s before its end."""
        start, end = day + dt.timedelta(seconds=20), day + dt.timedelta(days=1, seconds=-30)
        return Run(base, node, first, size, start, end, SERVING_NAMESPACE, "COMPLETED", True)

    def serving_run(self, day: dt.datetime) -> Run | None:
        """The model server pod of `day` (None: the fleet has no Kubernetes node)."""
        if not self.kubernetes_nodes:
            return None
        node = self.kubernetes_nodes[0]
        return next(run for run in self.runs(day, node) if run.serving)


def gpu_uuid(seed: int, node: str, index: int) -> str:
    return f"GPU-{uuid.UUID(bytes=hashlib.md5(f'{seed}/{node}/{index}'.encode()).digest())}"


def make_fleet(gpus: int, runs_per_gpu_day: float, seed: int) -> Fleet:
    """`gpus` (a multiple of 8) in nodes of 8; about `runs_per_gpu_day` runs per GPU a day."""
    if gpus < GPUS_PER_NODE or gpus % GPUS_PER_NODE:
        raise ValueError(f"--gpus {gpus}: a multiple of {GPUS_PER_NODE}")
    count = gpus // GPUS_PER_NODE
    kubernetes = count // 4 if count >= 4 else min(1, count - 1)
    nodes = []
    for index in range(count):
        scheduler = "slurm" if index < count - kubernetes else "kubernetes"
        prefix = "gpu-h100" if scheduler == "slurm" else "k8s-h100"
        name = f"{prefix}-{index:04d}"
        address = f"10.{index // 65536 % 256}.{index // 256 % 256}.{index % 256}"
        uuids = tuple(gpu_uuid(seed, name, i) for i in range(GPUS_PER_NODE))
        nodes.append(Node(name, index, scheduler, address, uuids))
    per_lane = round(runs_per_gpu_day * GPUS_PER_NODE / len(LANES))
    per_lane = min(MAX_RUNS_PER_LANE_DAY, max(1, per_lane))
    return Fleet(seed, tuple(nodes), per_lane)
