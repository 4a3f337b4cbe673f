"""The demo fleet and the demo month's instants, which policy/demo/*.csv agrees with.

Every instant is written as it falls for the demo month, 2026-10, the month the demo policy
prices; tests/demo/test_constants_agree_with_policy.py holds this module and the policy
files to each other. Naive datetimes elsewhere in the generator are UTC.

Another `--period` moves the generator's instants by one rule, `Window.at`: an instant
keeps its offset from the start of its month (`--period 2026-11` hands `nlp-shared` over at
2026-11-15T12:00 and holds the hackathon from 2026-11-17), except the extraction, which keeps
its offset from the month's end (four days after it), and the fleet's entry into service,
New Year of the year before the period's. The policy's own instants (`POLICY_INSTANTS`) do
not move: another month is priced under the demo policy as it stands.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


def utc(*fields: int) -> dt.datetime:
    """A UTC instant from its calendar fields (year, month, day[, hour[, minute]])."""
    return dt.datetime(*fields, tzinfo=dt.UTC)


# ---------------------------------------------------------------- the demo month

DEMO_PERIOD = "2026-10"
PERIOD_START = utc(2026, 10, 1)
PERIOD_END = utc(2026, 11, 1)
FLEET_IN_SERVICE = utc(2025, 1, 1)  # every GPU but the late node's, and the Kubernetes objects
FIRST_SUBMIT = utc(2026, 9, 25)  # the first job and pod of the accounting window
LATE_NODE_IN_SERVICE = utc(2026, 10, 8)
CIRRUS_RESERVATION_FROM = utc(2026, 10, 10)  # and cirrus-nlp submits more from then on
ARRAY_SWEEP_AT = utc(2026, 10, 12, 9, 14)  # the hp-sweep array job's submission
NVML_FROM, NVML_TO = utc(2026, 10, 12), utc(2026, 10, 14)  # the NVML sampler's two days
DCGM_FROM, DCGM_TO = utc(2026, 10, 12), utc(2026, 10, 15)  # dcgm-exporter's three days
NLP_SHARED_HANDOVER = utc(2026, 10, 15, 12)  # the Slurm account moves from atlas to cirrus
HACKATHON = (utc(2026, 10, 17), utc(2026, 10, 19))  # the unmapped `hackathon` account's jobs
EXTRACTED_AT = utc(2026, 11, 5)  # sacct and kubectl ran here; every file is dated by it

# Instants only the policy names: when its rows begin.
POLICY_FROM = utc(2026, 1, 1)  # ownership, rate card, endpoints, most reservations
DELTA_RESERVATION_FROM = utc(2026, 4, 1)
CHAT_WEIGHTS_REVISED = utc(2026, 10, 16)  # endpoint weights chat-2026.2 replace chat-2026.1

# Every instant each policy file names (a file not listed names none).
POLICY_INSTANTS = {
    "endpoint_scopes.csv": (POLICY_FROM,),
    "endpoint_weights.csv": (POLICY_FROM, CHAT_WEIGHTS_REVISED),
    "ownership.csv": (POLICY_FROM, NLP_SHARED_HANDOVER),
    "rate_card.csv": (POLICY_FROM,),
    "reservations.csv": (POLICY_FROM, DELTA_RESERVATION_FROM, CIRRUS_RESERVATION_FROM),
}


@dataclass(frozen=True)
class Window:
    """A period and the accounting window around it (naive datetimes, UTC)."""

    period_start: dt.datetime
    period_end: dt.datetime
    first_submit: dt.datetime
    extracted_at: dt.datetime  # sacct ran here: later jobs are unknown, open ones RUNNING

    def at(self, instant: dt.datetime) -> dt.datetime:
        """`instant` of the demo month moved to this period: the same offset from its start."""
        return self.period_start + (instant - PERIOD_START)

    @property
    def fleet_since(self) -> dt.datetime:
        """When the fleet entered service: as many years before the period as in the demo."""
        year = self.period_start.year - (PERIOD_START.year - FLEET_IN_SERVICE.year)
        return dt.datetime(year, FLEET_IN_SERVICE.month, FLEET_IN_SERVICE.day)


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
        first_submit=start + (FIRST_SUBMIT - PERIOD_START),
        extracted_at=end + (EXTRACTED_AT - PERIOD_END),
    )


# ---------------------------------------------------------------- the fleet

CLUSTER = "demo"  # the Slurm cluster
K8S_CLUSTER = "demo-k8s"
GPUS_PER_NODE = 8
H100_MODEL = "NVIDIA H100 80GB HBM3"
A100_MODEL = "NVIDIA A100-SXM4-80GB"
L4_MODEL = "NVIDIA L4"
GPU_CLASSES = {H100_MODEL: "h100", A100_MODEL: "a100", L4_MODEL: "l4"}
POWER_WATTS = {H100_MODEL: (68.0, 690.0), A100_MODEL: (56.0, 395.0), L4_MODEL: (16.0, 72.0)}

# The Slurm cluster's nodes, in inventory order: (name, GPU model).
SLURM_NODES = (
    *((f"hgx-h100-{i:02d}", H100_MODEL) for i in range(1, 9)),
    *((f"dgx-a100-{i:02d}", A100_MODEL) for i in range(1, 5)),
)
LATE_NODE = "dgx-a100-04"  # enters service at LATE_NODE_IN_SERVICE


@dataclass(frozen=True)
class KubeNode:
    name: str
    sharing: str  # whole, mig or timeslice
    gpus: int
    gpu_model: str
    product: str  # GPU feature discovery's nvidia.com/gpu.product
    memory_mib: int  # per GPU (nvidia.com/gpu.memory)
    address: str


KUBE_NODES = (
    KubeNode("k8s-h100-01", "whole", 8, H100_MODEL, "NVIDIA-H100-80GB-HBM3", 81559, "10.30.0.11"),
    KubeNode("k8s-h100-02", "whole", 8, H100_MODEL, "NVIDIA-H100-80GB-HBM3", 81559, "10.30.0.12"),
    KubeNode("k8s-a100-mig-01", "mig", 8, A100_MODEL, "NVIDIA-A100-SXM4-80GB", 81920, "10.30.0.21"),
    KubeNode("k8s-l4-ts-01", "timeslice", 4, L4_MODEL, "NVIDIA-L4-SHARED", 23034, "10.30.0.31"),
)
TIMESLICE_REPLICAS = 4
# Every A100 of the MIG node in the all-balanced layout: (profile, GPU instance id); 7 slices.
MIG_LAYOUT = (("3g.40gb", 1), ("2g.20gb", 5), ("1g.10gb", 13), ("1g.10gb", 14))

VGPU_HOST = "hv-a100-01"
# The vGPU type of each physical GPU of VGPU_HOST (one type per GPU).
VGPU_GPU_TYPES = ("A100D-40C", "A100D-40C", "A100D-20C", "A100D-20C")
NVML_HOSTS = ("hgx-h100-01", "dgx-a100-01", "k8s-h100-01", "k8s-l4-ts-01")


@dataclass(frozen=True)
class VirtualMachine:
    """A VM holding one vGPU of `gpu_index`'s type from `start` until `end` (None: still
    running at the extraction)."""

    vm_id: str
    vm_id_type: str  # uuid or domain_id
    gpu_index: int
    start: dt.datetime
    end: dt.datetime | None


# The UUID VMs are owned in policy/demo/ownership.csv (scope vm): the first three by ember,
# the next three by cirrus. The last one is known only by its domain id: nobody owns it.
VIRTUAL_MACHINES = (
    VirtualMachine("4d7e2f10-8c3a-4b6e-9f21-6a5c0e3b7d19", "uuid", 0, utc(2026, 8, 22), None),
    VirtualMachine(
        "a3c95e42-1f6d-4e0b-8d7a-2c4f9b6e1a58",
        "uuid",
        0,
        utc(2026, 10, 3, 9),
        utc(2026, 10, 20, 17),
    ),
    VirtualMachine(
        "e81b04c7-5d2a-4f93-b6c8-9e0d3a7f2b64",
        "uuid",
        2,
        utc(2026, 10, 5, 8),
        utc(2026, 10, 25, 12),
    ),
    VirtualMachine("7c2f9a61-3e8b-4d05-a9e4-1b6d8c0f5e27", "uuid", 1, utc(2026, 9, 15), None),
    VirtualMachine("b5e0d7a3-6c19-4f82-8e3b-4a7f2d9c1e06", "uuid", 2, utc(2026, 10, 10, 8), None),
    VirtualMachine(
        "0f6a3c8e-9d24-4b71-a5e0-7c3b1f8d2a95",
        "uuid",
        3,
        utc(2026, 10, 22, 10),
        utc(2026, 10, 29, 18),
    ),
    VirtualMachine("17", "domain_id", 3, utc(2026, 10, 12, 14), utc(2026, 10, 14, 10)),
)
