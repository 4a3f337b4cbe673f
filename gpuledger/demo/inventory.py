"""The CMDB export, `inventory.csv`: every GPU of the fleet, the Slurm nodes first, then the
Kubernetes nodes and the vGPU host, each node's GPUs by index."""

from __future__ import annotations

import datetime as dt
import random
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from gpuledger.demo.common import file_text, iso_z
from gpuledger.demo.constants import (
    A100_MODEL,
    GPU_CLASSES,
    GPUS_PER_NODE,
    KUBE_NODES,
    LATE_NODE,
    LATE_NODE_IN_SERVICE,
    SLURM_NODES,
    VGPU_GPU_TYPES,
    VGPU_HOST,
    Window,
)

INVENTORY_COLUMNS = (
    "gpu_uuid",
    "node",
    "gpu_model",
    "gpu_class",
    "in_service_from",
    "in_service_to",
)


@dataclass(frozen=True)
class Node:
    name: str
    gpu_model: str
    gpu_class: str
    in_service_from: dt.datetime
    gpus: int = GPUS_PER_NODE


def make_fleet(window: Window) -> tuple[Node, ...]:
    """The Slurm cluster's nodes (what the Slurm scheduler places jobs on)."""
    late = window.at(LATE_NODE_IN_SERVICE)
    return tuple(
        Node(name, model, GPU_CLASSES[model], late if name == LATE_NODE else window.fleet_since)
        for name, model in SLURM_NODES
    )


def other_nodes(window: Window) -> tuple[Node, ...]:
    """The Kubernetes nodes and the vGPU host (listed in the inventory after the Slurm nodes)."""
    since = window.fleet_since
    nodes = [Node(n.name, n.gpu_model, GPU_CLASSES[n.gpu_model], since, n.gpus) for n in KUBE_NODES]
    return (*nodes, Node(VGPU_HOST, A100_MODEL, "a100", since, len(VGPU_GPU_TYPES)))


def gpu_uuid(rng: random.Random) -> str:
    return f"GPU-{uuid.UUID(int=rng.getrandbits(128))}"


def inventory_rows(fleet: Sequence[Node], seed: int) -> list[tuple[str, ...]]:
    """One CMDB row per GPU, nodes in order and each node's GPUs by index."""
    rng = random.Random(f"{seed}-inventory")
    return [
        (gpu_uuid(rng), node.name, node.gpu_model, node.gpu_class, iso_z(node.in_service_from), "")
        for node in fleet
        for _ in range(node.gpus)
    ]


def inventory_csv(rows: Sequence[tuple[str, ...]]) -> str:
    return file_text([",".join(INVENTORY_COLUMNS), *(",".join(row) for row in rows)])


def uuids_by_node(rows: Sequence[tuple[str, ...]]) -> dict[str, list[str]]:
    """Each node's GPU UUIDs by GPU index."""
    nodes: dict[str, list[str]] = {}
    for row in rows:
        nodes.setdefault(row[1], []).append(row[0])
    return nodes
