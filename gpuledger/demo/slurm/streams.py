"""The Slurm cluster's tenants and their workloads: who submits, how often, what shape of
job, and how it tends to end (the jobs themselves are drawn in `slurm.jobs`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, replace

from gpuledger.demo.constants import CIRRUS_RESERVATION_FROM, HACKATHON, PERIOD_START

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
    # (from, rate factor) and [from, until) the stream submits: instants of the demo month
    phases: tuple[tuple[dt.datetime, float], ...] = ()
    active: tuple[dt.datetime, dt.datetime] | None = None  # None: the whole window


def _users(group: str, gid: int, names: Iterable[str], first_uid: int) -> tuple[User, ...]:
    return tuple(User(n, first_uid + i, group, gid) for i, n in enumerate(names))


ATLAS = _users("atlas", 5100, ("alice", "arjun", "amara", "aiden"), 10101)
BOREAL = _users("boreal", 5200, ("svc-boreal", "bob", "bianca"), 10201)
CIRRUS = _users("cirrus", 5300, ("carol", "chen", "cleo"), 10301)
DELTA = _users("delta", 5400, ("dana", "diego"), 10401)
EMBER = _users("ember", 5500, ("erin", "eli"), 10501)
STAFF = _users("users", 100, ("frank", "grace", "heidi"), 10601)
HACKERS = _users("hackathon", 5900, tuple(f"hack{i:02d}" for i in range(1, 9)), 10901)


# The tenants' workloads (boreal's serving base load is `SERVING`).
STREAMS = (
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
        phases=((PERIOD_START, 0.5), (CIRRUS_RESERVATION_FROM, 1.4)),
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

# boreal-serve: model servers redeployed back to back (`serving_chain`).
SERVING = Stream(
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

SCRATCH = Stream(
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
HACKATHON_STREAM = Stream(
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
# Accounts nobody mapped to a tenant; `unmapped_jobs` thins them to the target share.
UNMAPPED_STREAMS = (SCRATCH, replace(SCRATCH, gpu_class="a100", jobs_per_day=3.0), HACKATHON_STREAM)
