"""extractors.kubernetes.parse against kubectl List / watch-event fixtures and a real sample.

tests/fixtures/kubernetes/*.json(l) are recorded-shape fixtures written for the project
(see its README.md); tests/fixtures/kubernetes/real/ holds a third party's PodList fixture.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter

import pytest

from extractors.kubernetes.parse import Observation, ParseOptions, parse_observations
from extractors.kubernetes.records import (
    NAMESPACES_TABLE,
    NODES_TABLE,
    PENDING_REQUESTS_TABLE,
    POD_ALLOCATIONS_TABLE,
    RESOURCE_QUOTAS_TABLE,
)
from tests.extractors.kubernetes_samples import (
    CEEMS_PODS,
    CLUSTER_LIST,
    K8S,
    KUBECTL_WATCH,
    WATCH_NAMESPACES,
    WATCH_PODS,
    allocations,
    assert_nothing_lost,
    by_pod,
    namespaces,
    nodes,
    parse,
    pending,
    quotas,
    record_numbers,
)

# name, records read, rows per table, quarantined
SAMPLES = [
    (
        CLUSTER_LIST,
        22,
        {
            POD_ALLOCATIONS_TABLE: 10,
            PENDING_REQUESTS_TABLE: 1,
            NAMESPACES_TABLE: 4,
            RESOURCE_QUOTAS_TABLE: 4,
            NODES_TABLE: 4,
        },
        0,
    ),
    (WATCH_PODS, 9, {POD_ALLOCATIONS_TABLE: 8, PENDING_REQUESTS_TABLE: 3}, 0),
    (KUBECTL_WATCH, 3, {POD_ALLOCATIONS_TABLE: 3, PENDING_REQUESTS_TABLE: 2}, 0),
    (WATCH_NAMESPACES, 5, {NAMESPACES_TABLE: 5}, 0),
    (CEEMS_PODS, 4, {POD_ALLOCATIONS_TABLE: 7, PENDING_REQUESTS_TABLE: 2}, 0),
    ("bad-items.json", 9, {POD_ALLOCATIONS_TABLE: 1}, 8),
    ("bad-watch.jsonl", 6, {POD_ALLOCATIONS_TABLE: 2, PENDING_REQUESTS_TABLE: 1}, 4),
]


@pytest.mark.parametrize(("name", "read", "rows", "quarantined"), SAMPLES)
def test_counts_and_nothing_lost(
    name: str, read: int, rows: dict[str, int], quarantined: int
) -> None:
    result = parse(name)
    assert result.records_read == read
    assert {t: len(r) for t, r in result.tables.items()} == rows
    assert len(result.rejected) == quarantined
    assert_nothing_lost(result, record_numbers(name))


def test_cluster_list_gpu_requests_by_sharing_mode() -> None:
    rows = by_pod(parse(CLUSTER_LIST))
    shape = {
        key: (r.resource_name, r.quantity, r.sharing_mode, r.mig_profile, r.container_type)
        for key, r in rows.items()
    }
    assert shape == {
        ("train-llm-7b-0", "trainer"): ("nvidia.com/gpu", 8, "whole", None, "app"),
        # MIG strategy mixed: `nvidia.com/gpu: "0"` beside the MIG resource lands nothing
        ("vision-infer-6d5f7c9b8-x2k4p", "triton"): (
            "nvidia.com/mig-3g.40gb", 1, "mig", "3g.40gb", "app"),
        ("vision-infer-6d5f7c9b8-9wq7d", "triton"): (
            "nvidia.com/mig-3g.40gb", 1, "mig", "3g.40gb", "app"),
        # a quantity written as a number, as some tools do
        ("notebook-alice-0", "notebook"): ("nvidia.com/mig-1g.10gb", 1, "mig", "1g.10gb", "app"),
        ("dev-shell-5f6b7d9c4-qq8zt", "shell"): (
            "nvidia.com/gpu.shared", 1, "timeslice", None, "app"),
        ("dev-shell-5f6b7d9c4-rr9yu", "shell"): (
            "nvidia.com/gpu.shared", 1, "timeslice", None, "app"),
        ("train-llm-70b-0", "trainer"): ("nvidia.com/gpu", 8, "whole", None, "app"),
        ("batch-eval-28812340-9xk2j", "warmup"): ("nvidia.com/gpu", 1, "whole", None, "init"),
        ("batch-eval-28812340-9xk2j", "eval"): ("nvidia.com/gpu", 1, "whole", None, "app"),
        ("finetune-lora-0", "finetune"): ("nvidia.com/gpu", 2, "whole", None, "app"),
    }  # fmt: skip
    # Pods without GPU requests (web-frontend, the device plugin) are read and land no row.
    assert not {name for name, _ in rows} & {
        "web-frontend-7d4b9c8f6-h5n2m",
        "nvidia-device-plugin-daemonset-7xkzq",
    }


def test_intervals_from_container_states() -> None:
    rows = by_pod(parse(CLUSTER_LIST))
    running = rows[("train-llm-7b-0", "trainer")]
    assert (running.started_at, running.finished_at) == (dt.datetime(2026, 10, 14, 8, 2, 11), None)
    assert running.scheduled_at == dt.datetime(2026, 10, 14, 8, 0, 3)
    assert (running.owner_kind, running.owner_name) == ("Job", "train-llm-7b")
    assert running.container_id is not None and running.container_id.startswith("containerd://")
    warmup = rows[("batch-eval-28812340-9xk2j", "warmup")]
    evaluate = rows[("batch-eval-28812340-9xk2j", "eval")]
    assert (warmup.started_at, warmup.finished_at, warmup.finished_at_source) == (
        dt.datetime(2026, 10, 14, 9, 0, 5),
        dt.datetime(2026, 10, 14, 9, 3, 0),
        "terminated",
    )
    assert warmup.finished_at <= evaluate.started_at  # the init GPU is free before the app's
    assert (evaluate.termination_reason, evaluate.exit_code) == ("Completed", 0)
    # Crash-looping: waiting now; the last run's start is the earliest start the status keeps.
    crashing = rows[("finetune-lora-0", "finetune")]
    assert (crashing.started_at, crashing.finished_at, crashing.restart_count) == (
        dt.datetime(2026, 10, 14, 11, 50, 0),
        None,
        5,
    )
    # Terminating (deletionTimestamp set) but still running: not finished yet.
    terminating = rows[("vision-infer-6d5f7c9b8-9wq7d", "triton")]
    assert terminating.deletion_at == dt.datetime(2026, 10, 14, 11, 59, 30)
    assert (terminating.finished_at, terminating.is_deleted) == (None, False)
    # Never started: no interval.
    queued = rows[("train-llm-70b-0", "trainer")]
    assert (queued.started_at, queued.finished_at, queued.node_name) == (None, None, None)


def test_pending_request_keeps_the_scheduler_reason() -> None:
    (row,) = pending(parse(CLUSTER_LIST))
    assert (row.pod_name, row.resource_name, row.quantity, row.node_name) == (
        "train-llm-70b-0",
        "nvidia.com/gpu",
        8,
        None,
    )
    assert row.unschedulable_reason == "Unschedulable"
    assert row.unschedulable_message is not None
    assert row.unschedulable_message.startswith("0/4 nodes are available: 1 Insufficient")
    assert row.creation_at == dt.datetime(2026, 10, 14, 11, 40, 12)


@pytest.mark.parametrize(
    ("option", "declared", "undeclared"),
    [(None, 4, None), (2, 4, 2)],
)
def test_timeslice_replicas_from_annotation_else_option(
    option: int | None, declared: int, undeclared: int | None
) -> None:
    rows = by_pod(parse(CLUSTER_LIST, timeslice_replicas=option))
    assert rows[("dev-shell-5f6b7d9c4-qq8zt", "shell")].timeslice_replicas == declared
    assert rows[("dev-shell-5f6b7d9c4-rr9yu", "shell")].timeslice_replicas == undeclared
    # replicas describe time-sliced requests only
    assert rows[("train-llm-7b-0", "trainer")].timeslice_replicas is None


def test_namespace_labels_and_configurable_keys() -> None:
    default = {
        n.name: (n.tenant_label_value, n.project_label_value)
        for n in namespaces(parse(CLUSTER_LIST))
    }
    assert default == {
        "kube-system": (None, None),
        "team-a": ("acme", "llm-platform"),
        "team-b": ("globex", "vision"),
        "team-c": ("initech", None),
    }
    custom = parse(CLUSTER_LIST, tenant_label="kubernetes.io/metadata.name", project_label="x")
    assert {n.name: n.tenant_label_value for n in namespaces(custom)}["team-b"] == "team-b"
    team_a = next(n for n in namespaces(custom) if n.name == "team-a")
    assert json.loads(team_a.labels)["gpuledger.io/tenant"] == "acme"
    assert team_a.tenant_label_key == "kubernetes.io/metadata.name"


def test_namespace_watch_label_changes_and_deletion() -> None:
    rows = namespaces(parse(WATCH_NAMESPACES))
    assert [(n.name, n.event_type, n.tenant_label_value, n.project_label_value) for n in rows] == [
        ("team-a", "MODIFIED", "acme-research", "llm-platform"),
        ("team-d", "ADDED", "umbrella", "pilot"),
        ("team-d", "MODIFIED", "umbrella", "pilot"),
        ("team-d", "DELETED", "umbrella", "pilot"),
        ("team-a", "MODIFIED", "acme-research", "llm-eval"),
    ]
    deleted = rows[3]
    assert deleted.is_deleted and deleted.deletion_at == dt.datetime(2026, 10, 14, 18, 0)
    assert rows[2].phase == "Terminating" and not rows[2].is_deleted


def test_resource_quota_gpu_entries_only() -> None:
    rows = {(q.namespace, q.resource_name): q for q in quotas(parse(CLUSTER_LIST))}
    assert {k: (q.gpu_resource_name, q.hard, q.used, q.mig_profile) for k, q in rows.items()} == {
        ("team-a", "requests.nvidia.com/gpu"): ("nvidia.com/gpu", 24.0, 18.0, None),
        ("team-b", "requests.nvidia.com/gpu"): ("nvidia.com/gpu", 0.0, 0.0, None),
        ("team-b", "requests.nvidia.com/mig-1g.10gb"): (
            "nvidia.com/mig-1g.10gb", 4.0, 1.0, "1g.10gb"),
        ("team-b", "requests.nvidia.com/mig-3g.40gb"): (
            "nvidia.com/mig-3g.40gb", 2.0, 2.0, "3g.40gb"),
    }  # fmt: skip


def test_node_gpu_resources_and_sharing_labels() -> None:
    rows = {(n.node_name, n.resource_name): n for n in nodes(parse(CLUSTER_LIST))}
    assert {
        k: (n.capacity, n.sharing_mode, n.sharing_strategy, n.timeslice_replicas, n.mig_strategy)
        for k, n in rows.items()
    } == {
        ("gpu-h100-01", "nvidia.com/gpu"): (8, "whole", "none", 1, "single"),
        ("gpu-a100-mig-01", "nvidia.com/mig-1g.10gb"): (1, "mig", "none", 1, "mixed"),
        ("gpu-a100-mig-01", "nvidia.com/mig-3g.40gb"): (2, "mig", "none", 1, "mixed"),
        ("gpu-l4-ts-01", "nvidia.com/gpu.shared"): (8, "timeslice", "time-slicing", 4, "none"),
    }  # `nvidia.com/gpu: "0"` on the MIG node and the CPU node land nothing
    assert rows[("gpu-h100-01", "nvidia.com/gpu")].gpu_product == "NVIDIA-H100-80GB-HBM3"


def test_watch_stream_follows_one_pod_to_its_deletion() -> None:
    result = parse(WATCH_PODS)
    life = [
        (r.source_line, r.event_type, r.phase, r.node_name, r.started_at, r.finished_at)
        for r in allocations(result)
        if r.pod_name == "train-llm-13b-0"
    ]
    start = dt.datetime(2026, 10, 14, 12, 1, 30)
    end = dt.datetime(2026, 10, 14, 13, 45)
    assert life == [
        (1, "ADDED", "Pending", None, None, None),
        (2, "MODIFIED", "Pending", "gpu-h100-01", None, None),
        (3, "MODIFIED", "Running", "gpu-h100-01", start, None),
        (7, "MODIFIED", "Succeeded", "gpu-h100-01", start, end),
        (8, "MODIFIED", "Succeeded", "gpu-h100-01", start, end),
        (9, "DELETED", "Succeeded", "gpu-h100-01", start, end),
    ]
    assert [r.is_deleted for r in allocations(result) if r.source_line == 9] == [True]
    # The BOOKMARK on line 6 is read and lands nothing.
    assert 6 not in {r.source_line for r in allocations(result)}


def test_deleted_while_running_ends_at_the_deletion() -> None:
    (row,) = [
        r
        for r in allocations(parse(WATCH_PODS))
        if r.event_type == "DELETED" and (r.pod_name or "").startswith("vision")
    ]
    assert (row.finished_at, row.finished_at_source) == (
        dt.datetime(2026, 10, 14, 12, 30),
        "deleted",
    )
    # Observed before the deletionTimestamp (a graceful delete seen early): the observation.
    early = parse_observations(
        [
            Observation(
                line=1,
                obj=_vision_deleted(),
                observed_at=dt.datetime(2026, 10, 14, 12, 29),
                event_type="DELETED",
            )
        ],
        ParseOptions(),
    )
    assert allocations(early)[0].finished_at == dt.datetime(2026, 10, 14, 12, 29)


def _vision_deleted() -> dict[str, object]:
    for line in (K8S / WATCH_PODS).read_text().splitlines():
        event = json.loads(line)
        if event["type"] == "DELETED" and event["object"]["metadata"]["name"].startswith("vision"):
            return event["object"]
    raise AssertionError("fixture changed")


def test_kubectl_pretty_printed_watch_events_are_numbered_by_starting_line() -> None:
    result = parse(KUBECTL_WATCH)
    lines = sorted({r.source_line for r in allocations(result)})
    assert lines == sorted(record_numbers(KUBECTL_WATCH))
    assert lines[0] == 1
    assert [r.event_type for r in allocations(result)] == ["ADDED", "MODIFIED", "MODIFIED"]


def test_real_ceems_podlist_numbers_and_no_container_status() -> None:
    rows = allocations(parse(CEEMS_PODS))
    counts = Counter((r.pod_name, r.resource_name) for r in rows)
    quantities = {(r.pod_name, r.container_name): r.quantity for r in rows}
    assert counts == Counter({
        ("pod11", "nvidia.com/gpu"): 1,
        ("pod11", "nvidia.com/mig-1g.5gb"): 1,
        ("pod21", "nvidia.com/mig-4g.20gb"): 1,
        ("pod22", "nvidia.com/mig-4g.20gb"): 1,
        ("pod22", "nvidia.com/mig-1g.5gb"): 1,
        ("pod31", "nvidia.com/gpu"): 1,
        ("pod31", "nvidia.com/mig-4g.20gb"): 1,
    })  # fmt: skip
    assert quantities[("pod11", "cont111")] == 2 and quantities[("pod21", "cont211")] == 4
    # The sample has no container statuses: nothing started, so no interval, but the pod's
    # start time and deletion time are kept.
    assert {r.started_at for r in rows} == {None}
    pod22 = next(r for r in rows if r.pod_name == "pod22")
    assert pod22.deletion_at == dt.datetime(2025, 7, 7, 10, 10, 58)
    assert pod22.pod_started_at == dt.datetime(2025, 7, 7, 9, 26, 58)
    assert {r.pod_name for r in pending(parse(CEEMS_PODS))} == {"pod31"}
