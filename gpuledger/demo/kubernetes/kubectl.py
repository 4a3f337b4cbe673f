"""What kubectl recorded of `demo-k8s`: the namespaces listed when the pod watch started, the
month's pod watch events, and the listing of pods, namespaces, resource quotas and nodes at
the extraction."""

from __future__ import annotations

import collections
import datetime as dt
import json
import random
from collections.abc import Iterable, Sequence

from gpuledger.demo.common import random_uuid
from gpuledger.demo.constants import KUBE_NODES, Window
from gpuledger.demo.kubernetes.cluster import KUBE_NAMESPACES, SYSTEM_NAMESPACES
from gpuledger.demo.kubernetes.objects import (
    daemon_pod_object,
    namespace_object,
    node_object,
    pod_object,
    quota_object,
)
from gpuledger.demo.kubernetes.pods import KubePod

CONTROL_PLANE = "k8s-cp-01"
JOB_POD_TTL = dt.timedelta(days=2)  # finished Job pods are still listed this long


def pod_changes(pod: KubePod, cut: dt.datetime) -> list[tuple[dt.datetime, str]]:
    """(time, watch event type) of every change of the pod up to `cut`."""
    changes = [(pod.created_at, "ADDED")]
    scheduled, started, finished = pod.scheduled_at, pod.started_at, pod.finished_at
    if scheduled is not None and scheduled > pod.created_at:
        changes.append((scheduled, "MODIFIED"))
    if started is not None:
        changes.append((started, "MODIFIED"))
    deletion = pod.deletion_requested_at
    if deletion is not None:
        changes.append((deletion, "MODIFIED"))
    if finished is not None:
        changes.append((finished, "DELETED" if pod.ending == "Deleted" else "MODIFIED"))
    return [(at, kind) for at, kind in changes if at <= cut]


def is_listed(pod: KubePod, cut: dt.datetime) -> bool:
    """Whether `kubectl get pods` at `cut` still shows the pod."""
    finished = pod.finished_at
    if finished is None or finished > cut:
        return True
    return pod.ending != "Deleted" and cut - finished <= JOB_POD_TTL


def peak_usage(pods: Iterable[KubePod], cut: dt.datetime) -> dict[tuple[str, str], int]:
    """Per (namespace, resource): the most devices its pods held at once up to `cut`, pods
    not yet bound at `cut` counted as holding theirs then (a quota counts Pending pods)."""
    deltas: dict[tuple[str, str], list[tuple[dt.datetime, int]]] = {}
    for pod in pods:
        key = (pod.namespace, pod.resource)
        start = pod.scheduled_at or cut
        finished = pod.finished_at
        end = finished if finished is not None and finished <= cut else cut + dt.timedelta(1)
        deltas.setdefault(key, []).extend(((start, pod.count), (end, -pod.count)))
    peaks = {}
    for key, changes in deltas.items():
        held = peak = 0
        for _, change in sorted(changes):
            held += change
            peak = max(peak, held)
        peaks[key] = peak
    return peaks


class ResourceVersions:
    """The API server's resourceVersion counter."""

    def __init__(self, first: int) -> None:
        self.last = first

    def next(self) -> int:
        self.last += 1
        return self.last


def kubectl_watch(
    pods: Sequence[KubePod], window: Window, versions: ResourceVersions
) -> tuple[str, dict[str, int]]:
    """The month's pod watch events, one `{type, object}` per line in time order (what
    `kubectl get pods -A -w -o json --output-watch-events` records), and each pod's last
    resourceVersion."""
    cut = window.extracted_at
    changes = sorted(
        (
            (at, order, kind, pod)
            for pod in pods
            for order, (at, kind) in enumerate(pod_changes(pod, cut))
        ),
        key=lambda change: (change[0], change[3].uid, change[1]),
    )
    lines, last = [], {}
    for at, _, kind, pod in changes:
        version = versions.next()
        last[pod.uid] = version
        event = {"object": pod_object(pod, at, version), "type": kind}
        lines.append(json.dumps(event, separators=(",", ":"), sort_keys=True))
    return "\n".join(lines) + "\n", last


def kubectl_list(
    rng: random.Random,
    pods: Sequence[KubePod],
    window: Window,
    versions: ResourceVersions,
    last_versions: dict[str, int],
) -> str:
    """`kubectl get pods,namespaces,resourcequotas,nodes -A -o json` at the extraction."""
    cut = window.extracted_at
    since = window.fleet_since
    items: list[dict[str, object]] = []
    for number, node in enumerate(KUBE_NODES):
        started = since + dt.timedelta(days=60 + number, hours=1)
        for daemon, image in (
            ("nvidia-device-plugin-daemonset", "nvcr.io/nvidia/k8s-device-plugin:v0.16.2"),
            ("nvidia-dcgm-exporter", "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.8-3.6.0-ubuntu22.04"),
        ):
            items.append(daemon_pod_object(rng, daemon, image, node, started, versions.next()))
    for pod in pods:
        if is_listed(pod, cut):
            items.append(pod_object(pod, cut, last_versions.get(pod.uid) or versions.next()))
    created_namespaces = since + dt.timedelta(days=59)
    for name in SYSTEM_NAMESPACES:
        items.append(
            namespace_object(name, (), created_namespaces, random_uuid(rng), versions.next())
        )
    for number, namespace in enumerate(KUBE_NAMESPACES):
        created = since + dt.timedelta(days=120 + 9 * number, hours=10)
        items.append(
            namespace_object(
                namespace.name, namespace.labels, created, random_uuid(rng), versions.next()
            )
        )
    peaks = peak_usage(pods, cut)
    for number, namespace in enumerate(KUBE_NAMESPACES):
        hard = {
            resource: max(count, peaks.get((namespace.name, resource), 0))
            for resource, count in namespace.quota
        }
        used: dict[str, int] = collections.Counter()
        for pod in pods:
            finished = pod.finished_at
            if pod.namespace == namespace.name and (finished is None or finished > cut):
                used[pod.resource] += pod.count
        created = since + dt.timedelta(days=120 + 9 * number, hours=10, minutes=1)
        items.append(
            quota_object(namespace, hard, used, created, random_uuid(rng), versions.next())
        )
    for number, node in enumerate((None, *KUBE_NODES)):
        name = CONTROL_PLANE if node is None else node.name
        created = since + dt.timedelta(days=59, minutes=10 * number)
        items.append(node_object(node, name, created, random_uuid(rng), versions.next()))
    document = {
        "apiVersion": "v1",
        "items": items,
        "kind": "List",
        "metadata": {"resourceVersion": ""},
    }
    return json.dumps(document, indent=4, sort_keys=True) + "\n"


def kubectl_namespaces(listing: str) -> str:
    """`kubectl get namespaces -o json` when the pod watch started (before the first pod of
    the window): the namespaces of the extraction's `listing`, the same objects, since no
    namespace changed after its creation. It is what shows their tenant labels from then on
    (label ownership holds from its first observation, never before)."""
    items = [item for item in json.loads(listing)["items"] if item["kind"] == "Namespace"]
    document = {
        "apiVersion": "v1",
        "items": items,
        "kind": "List",
        "metadata": {"resourceVersion": ""},
    }
    return json.dumps(document, indent=4, sort_keys=True) + "\n"
