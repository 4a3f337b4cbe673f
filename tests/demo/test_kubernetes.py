"""The Kubernetes files: no node's devices, MIG layout or time-slice replicas over-committed,
and the cluster's cases (phases, deletions, Pending pods, namespace owners, quotas)."""

from __future__ import annotations

import collections
import itertools
import json
import random

from gpuledger.demo.constants import make_window
from gpuledger.demo.kubernetes.cluster import SHARED_RESOURCE
from gpuledger.demo.kubernetes.pods import kubernetes_workload
from tests.demo.evidence import (
    EXTRACTED,
    PERIOD_END,
    PERIOD_START,
    Kube,
    gpu_equivalents,
    namespace_tenants,
    node_labels,
    peak,
)


def test_kubernetes_devices_never_exceed_a_node(kube: Kube) -> None:
    capacity = {
        (row.node_name, row.resource_name): row.capacity for row in kube.table("kubernetes_nodes")
    }
    gpus = {
        name: int(labels.get("nvidia.com/gpu.count", 0))
        for name, labels in node_labels(kube).items()
    }
    by_resource = collections.defaultdict(list)
    by_node = collections.defaultdict(list)
    for interval in kube.intervals:
        by_resource[(interval.node, interval.resource)].append(interval)
        by_node[interval.node].append(interval)
    for key, intervals in by_resource.items():
        held = peak((i.start, i.end, i.count) for i in intervals)
        assert held <= capacity[key], key
    for node, intervals in by_node.items():
        held = peak((i.start, i.end, gpu_equivalents(i)) for i in intervals)
        assert held <= gpus[node] + 1e-6, node
    assert set(by_node) == {"k8s-h100-01", "k8s-h100-02", "k8s-a100-mig-01", "k8s-l4-ts-01"}
    modes = {(i.node, i.sharing_mode) for i in kube.intervals}
    assert modes == {
        ("k8s-h100-01", "whole"),
        ("k8s-h100-02", "whole"),
        ("k8s-a100-mig-01", "mig"),
        ("k8s-l4-ts-01", "timeslice"),
    }
    assert peak((i.start, i.end, i.count) for i in by_node["k8s-h100-01"]) == 8


def test_mig_node_advertises_a_valid_a100_layout(kube: Kube) -> None:
    mig = {
        row.mig_profile: row.capacity
        for row in kube.table("kubernetes_nodes")
        if row.node_name == "k8s-a100-mig-01"
    }
    gpus = int(node_labels(kube)["k8s-a100-mig-01"]["nvidia.com/gpu.count"])
    slices = {"1g.10gb": 1, "2g.20gb": 2, "3g.40gb": 3}
    assert set(mig) == set(slices)
    assert all(count % gpus == 0 for count in mig.values()), "GPUs partitioned alike"
    assert sum(slices[p] * count // gpus for p, count in mig.items()) <= 7


def test_time_slices_never_exceed_the_replicas_of_a_gpu() -> None:
    window = make_window("2026-10")
    pods = kubernetes_workload(random.Random("7-kubernetes"), window)
    per_gpu = collections.defaultdict(list)
    namespaces = collections.defaultdict(list)
    for pod in pods:
        if pod.resource == SHARED_RESOURCE and pod.started_at is not None:
            end = min(pod.finished_at or EXTRACTED, EXTRACTED)
            for slot in pod.slots:
                per_gpu[(slot.node, slot.gpu_index)].append((pod.started_at, end, 1))
                namespaces[(slot.node, slot.gpu_index)].append((pod.started_at, end, pod.namespace))
    assert len(per_gpu) >= 2, "replicas bin-packed, but more than one GPU in use"
    assert 2 <= max(peak(intervals) for intervals in per_gpu.values()) <= 4, "shared, within"
    shared_across_tenants = [
        (a, b)
        for held in namespaces.values()
        for a, b in itertools.combinations(held, 2)
        if a[2] != b[2] and a[0] < b[1] and b[0] < a[1]
    ]
    assert shared_across_tenants, "pods of two namespaces time-slice one GPU at once"


def test_kubernetes_evidence_covers_the_demo_cases(kube: Kube) -> None:
    allocations = kube.table("kubernetes_pod_allocations")
    phases = collections.Counter(row.phase for row in allocations)
    assert phases["Running"] and phases["Succeeded"] and phases["Failed"] and phases["Pending"]
    assert any(row.is_deleted and row.finished_at_source == "terminated" for row in allocations)
    assert any(i.end == EXTRACTED for i in kube.intervals), "a pod still running when listed"
    assert any(i.start < PERIOD_START < i.end for i in kube.intervals)
    assert any(i.start < PERIOD_END < i.end for i in kube.intervals)
    listed_pending = [
        row
        for row in kube.table("kubernetes_pending_requests")
        if row.event_type is None and row.node_name is None
    ]
    assert listed_pending and all(r.unschedulable_reason == "Unschedulable" for r in listed_pending)
    assert {i.replicas for i in kube.intervals if i.namespace == "sandbox"} == {4}

    tenants = namespace_tenants(kube)
    assert {ns: tenants[ns] for ns in {i.namespace for i in kube.intervals}} == {
        "ml-serving": "boreal",
        "research-train": "atlas",
        "vision": "delta",
        "nlp-notebooks": "cirrus",
        "sandbox": None,
    }
    labels = {row.name: json.loads(row.labels) for row in kube.table("kubernetes_namespaces")}
    assert len(labels["sandbox"]) > 1 and "gpuledger.io/tenant" not in labels["sandbox"]
    assert "gpuledger.io/tenant" not in labels["nlp-notebooks"]

    quotas = kube.table("kubernetes_resource_quotas")
    assert any(
        q.namespace == "research-train" and q.resource_name == "requests.nvidia.com/gpu"
        for q in quotas
    )
    assert all(q.used is not None and q.used <= q.hard for q in quotas)
    replicas = {row.node_name: row.timeslice_replicas for row in kube.table("kubernetes_nodes")}
    assert replicas["k8s-l4-ts-01"] == 4
