"""The Kubernetes cluster `bench-k8s` as kubectl recorded it: `kubectl get namespaces,nodes
-o json` when the pod watch started (a v1 List: the tenants' namespaces with their tenant
label, the serving namespace, an unlabelled `scratch`, the GPU nodes with GPU feature
discovery's labels), then one file of pod watch events a day (`kubectl get pods -A -w -o json
--output-watch-events`: a `{type, object}` per line in time order), each pod ADDED when
created, MODIFIED when its container started and when it ended (a Job's pod) or DELETED (the
model server's pod, replaced daily)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from benchmarks.fleet import (
    FLEET_SINCE,
    GPUS_PER_NODE,
    H100_MODEL,
    SERVING_NAMESPACE,
    TENANTS,
    Fleet,
    Node,
    Run,
)
from gpuledger.demo.common import iso_z
from gpuledger.demo.kubernetes.cluster import TENANT_LABEL

CLUSTER = "bench-k8s"
GPU_RESOURCE = "nvidia.com/gpu"
PULL_SECONDS = 5  # a pod's container starts this long after the pod was created
GRACE_SECONDS = 30
IMAGE = "nvcr.io/nvidia/pytorch:24.08-py3"
SERVER_IMAGE = "vllm/vllm-openai:v0.6.3"


def _dump(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _namespace(name: str, labels: dict[str, str], version: int) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "creationTimestamp": iso_z(FLEET_SINCE),
            "labels": {"kubernetes.io/metadata.name": name, **labels},
            "name": name,
            "resourceVersion": str(version),
            "uid": f"ns-{version:08d}",
        },
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }


def _node(node: Node, version: int) -> dict[str, object]:
    resources = {"cpu": "128", "memory": "2113407940Ki", "pods": "110"}
    resources[GPU_RESOURCE] = str(GPUS_PER_NODE)
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "creationTimestamp": iso_z(FLEET_SINCE),
            "labels": {
                "kubernetes.io/hostname": node.name,
                "nvidia.com/gpu.count": str(GPUS_PER_NODE),
                "nvidia.com/gpu.present": "true",
                "nvidia.com/gpu.product": H100_MODEL.replace(" ", "-"),
                "nvidia.com/gpu.replicas": "1",
                "nvidia.com/gpu.sharing-strategy": "none",
            },
            "name": node.name,
            "resourceVersion": str(version),
            "uid": f"node-{node.index:08d}",
        },
        "spec": {},
        "status": {
            "addresses": [{"address": node.address, "type": "InternalIP"}],
            "allocatable": dict(resources),
            "capacity": resources,
        },
    }


def write_watch_start(path: Path, fleet: Fleet) -> int:
    """The List of namespaces and nodes at the watch start; returns its items."""
    namespaces = [(f"ns-{tenant}", {TENANT_LABEL: tenant}) for tenant in TENANTS]
    namespaces += [(SERVING_NAMESPACE, {TENANT_LABEL: TENANTS[0]}), ("scratch", {})]
    items = [_namespace(name, labels, i + 1) for i, (name, labels) in enumerate(namespaces)]
    items += [_node(node, 1000 + node.index) for node in fleet.kubernetes_nodes]
    document = {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {}}
    path.write_text(json.dumps(document, indent=4, sort_keys=True) + "\n", encoding="utf-8")
    return len(items)


def pod_object(run: Run, phase: str, version: int) -> dict[str, object]:
    """The pod as the API served it in `phase` (Pending: bound, its container creating)."""
    created = run.start - dt.timedelta(seconds=PULL_SECONDS)
    container: dict[str, object] = {"image": SERVER_IMAGE if run.serving else IMAGE}
    container |= {"name": "server" if run.serving else "main", "restartCount": 0}
    if phase == "Pending":
        container["state"] = {"waiting": {"reason": "ContainerCreating"}}
    elif phase == "Running":
        container["state"] = {"running": {"startedAt": iso_z(run.start)}}
    else:
        failed = phase == "Failed"
        container["state"] = {
            "terminated": {
                "exitCode": 1 if failed else 0,
                "finishedAt": iso_z(run.end),
                "reason": "Error" if failed else "Completed",
                "startedAt": iso_z(run.start),
            }
        }
    owner_kind = "ReplicaSet" if run.serving else "Job"
    owner = run.name.rsplit("-", 1)[0]
    metadata: dict[str, object] = {
        "creationTimestamp": iso_z(created),
        "labels": {"app": "chat-llama70b"} if run.serving else {"job-name": owner},
        "name": run.name,
        "namespace": run.owner,
        "ownerReferences": [
            {
                "apiVersion": "apps/v1" if run.serving else "batch/v1",
                "controller": True,
                "kind": owner_kind,
                "name": owner,
                "uid": f"owner-{run.run_id}",
            }
        ],
        "resourceVersion": str(version),
        "uid": run.uid,
    }
    if run.serving and phase not in ("Pending", "Running"):
        metadata["deletionGracePeriodSeconds"] = GRACE_SECONDS
        metadata["deletionTimestamp"] = iso_z(run.end)
    resources = {"cpu": str(16 * run.gpus), "memory": f"{128 * run.gpus}Gi"}
    resources[GPU_RESOURCE] = str(run.gpus)
    spec = {
        "containers": [
            {
                "image": container["image"],
                "name": container["name"],
                "resources": {"limits": resources, "requests": dict(resources)},
            }
        ],
        "nodeName": run.node.name,
        "restartPolicy": "Always" if run.serving else "Never",
    }
    status: dict[str, object] = {
        "conditions": [
            {"lastTransitionTime": iso_z(created), "status": "True", "type": "PodScheduled"}
        ],
        "containerStatuses": [container],
        "hostIP": run.node.address,
        "phase": phase,
        "startTime": iso_z(created),
    }
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec, "status": status}


def _events(run: Run) -> list[tuple[dt.datetime, int, str, str]]:
    """(time, order, event type, phase) of the run's pod's changes."""
    created = run.start - dt.timedelta(seconds=PULL_SECONDS)
    if run.serving:
        last = (run.end, 2, "DELETED", "Succeeded")
    else:
        last = (run.end, 2, "MODIFIED", "Failed" if run.state == "FAILED" else "Succeeded")
    return [(created, 0, "ADDED", "Pending"), (run.start, 1, "MODIFIED", "Running"), last]


def write_watch_day(path: Path, fleet: Fleet, day: dt.datetime) -> int:
    """The day's pod watch events in time order; returns the events written."""
    changes = [
        (at, run.run_id, order, kind, phase, run)
        for node in fleet.kubernetes_nodes
        for run in fleet.runs(day, node)
        for at, order, kind, phase in _events(run)
    ]
    changes.sort(key=lambda change: change[:3])
    version = 50_000_000 + (day - FLEET_SINCE).days * 1_000_000
    with path.open("w", encoding="utf-8") as out:
        for number, (_, _, _, kind, phase, run) in enumerate(changes, start=1):
            event = {"object": pod_object(run, phase, version + number), "type": kind}
            out.write(_dump(event) + "\n")
    return len(changes)


def write_pod_list(path: Path, fleet: Fleet, days: list[dt.datetime]) -> int:
    """`kubectl get pods -A -o json` after `days`: a v1 List of every pod of those days in its
    last state, written as kubectl writes it (4-space indent, keys sorted: `apiVersion`,
    `items`, `kind`, `metadata`), an item at a time; returns its items."""
    items = 0
    with path.open("w", encoding="utf-8") as out:
        out.write('{\n    "apiVersion": "v1",\n    "items": [')
        for day in days:
            version = 50_000_000 + (day - FLEET_SINCE).days * 1_000_000
            for node in fleet.kubernetes_nodes:
                for run in fleet.runs(day, node):
                    phase = _events(run)[-1][3]
                    pod = pod_object(run, phase, version + items)
                    text = json.dumps(pod, indent=4, sort_keys=True).replace("\n", "\n        ")
                    out.write(("\n        " if items == 0 else ",\n        ") + text)
                    items += 1
        out.write('\n    ],\n    "kind": "List",\n    "metadata": {\n')
        out.write('        "resourceVersion": ""\n    }\n}\n')
    return items
