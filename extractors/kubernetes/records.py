"""Typed rows of the Kubernetes source: GPU requests of pods, namespaces, quotas and nodes.

Every row carries where it came from: `observed_at` (when the client saw the object: the
receipt time of a watch event or list, or the file's modification time), `event_type`
(ADDED, MODIFIED, DELETED; None for an item of a List), the object's `resource_version`,
and `source_line` (the index of the item in a List, or the line of the event in a watch
stream or live batch). Times are zone-less UTC.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

POD_ALLOCATIONS_TABLE = "kubernetes_pod_allocations"
PENDING_REQUESTS_TABLE = "kubernetes_pending_requests"
NAMESPACES_TABLE = "kubernetes_namespaces"
RESOURCE_QUOTAS_TABLE = "kubernetes_resource_quotas"
NODES_TABLE = "kubernetes_nodes"
LIST_SNAPSHOTS_TABLE = "kubernetes_list_snapshots"


@dataclass(frozen=True)
class PodAllocation:
    """One GPU resource request of one container of one pod, as observed once.

    `quantity` is the request (the limit when no request is set; the API requires both to be
    equal for extended resources). `started_at` is the earliest start the container status
    shows (running, terminated or last terminated state); None when the container never
    started, so there is no allocation interval. `finished_at` is the container's
    terminated.finishedAt, else for a pod seen deleted the deletion time (the earlier of
    metadata.deletionTimestamp and the time the DELETED event was observed), else for a
    terminated pod (phase Succeeded or Failed) the latest pod condition transition;
    `finished_at_source` says which (`terminated`, `deleted`, `pod_conditions`).
    """

    cluster: str
    pod_uid: str
    pod_name: str | None
    namespace: str | None
    node_name: str | None
    phase: str | None
    pod_reason: str | None  # status.reason: "Evicted", "Preempting", ...
    container_name: str
    container_type: str  # "app" or "init"
    container_id: str | None
    resource_name: str  # "nvidia.com/gpu", "nvidia.com/mig-3g.40gb", "nvidia.com/gpu.shared"
    quantity: int
    sharing_mode: str  # "whole", "mig" or "timeslice"
    mig_profile: str | None  # "3g.40gb"
    timeslice_replicas: int | None  # declared replicas (pod annotation or option); timeslice only
    started_at: dt.datetime | None
    finished_at: dt.datetime | None
    finished_at_source: str | None
    termination_reason: str | None  # "Completed", "OOMKilled", "Error", ...
    exit_code: int | None
    restart_count: int | None
    pod_started_at: dt.datetime | None  # status.startTime (kubelet acknowledged the pod)
    scheduled_at: dt.datetime | None  # PodScheduled condition turned True
    owner_kind: str | None  # the controller ownerReference, else the first one
    owner_name: str | None
    owner_uid: str | None
    creation_at: dt.datetime | None
    deletion_at: dt.datetime | None  # metadata.deletionTimestamp
    observed_at: dt.datetime
    event_type: str | None
    is_deleted: bool  # seen in a DELETED watch event
    resource_version: str | None
    list_resource_version: str | None  # the List's resourceVersion when seen in a List
    source_line: int


@dataclass(frozen=True)
class PendingRequest:
    """One GPU resource request of a container of a pod observed in phase Pending.

    `node_name` is set when the scheduler already bound the pod (it then waits for its
    containers, not for capacity); `unschedulable_reason`/`_message` come from the
    PodScheduled condition when it is False.
    """

    cluster: str
    namespace: str | None
    pod_uid: str
    pod_name: str | None
    node_name: str | None
    container_name: str
    container_type: str
    resource_name: str
    quantity: int
    sharing_mode: str
    mig_profile: str | None
    unschedulable_reason: str | None
    unschedulable_message: str | None
    creation_at: dt.datetime | None
    observed_at: dt.datetime
    event_type: str | None
    is_deleted: bool
    resource_version: str | None
    source_line: int


@dataclass(frozen=True)
class NamespaceObservation:
    """One namespace as observed once, with its labels (JSON text, keys sorted).

    `tenant_label_value`/`project_label_value` are the values of the label keys the ingest
    was told to read (`tenant_label_key`, `project_label_key`), None when absent.
    """

    cluster: str
    name: str
    namespace_uid: str
    labels: str
    tenant_label_key: str
    tenant_label_value: str | None
    project_label_key: str
    project_label_value: str | None
    phase: str | None
    creation_at: dt.datetime | None
    deletion_at: dt.datetime | None
    observed_at: dt.datetime
    event_type: str | None
    is_deleted: bool
    resource_version: str | None
    list_resource_version: str | None
    source_line: int


@dataclass(frozen=True)
class ResourceQuotaObservation:
    """One GPU resource of one ResourceQuota as observed once.

    `resource_name` is the quota's key (`requests.nvidia.com/gpu`, `nvidia.com/gpu`,
    `requests.nvidia.com/mig-3g.40gb`); `gpu_resource_name` is the device resource it
    limits. `hard` is status.hard (the enforced value), else spec.hard; `used` is status.used.
    """

    cluster: str
    namespace: str | None
    quota_name: str | None
    quota_uid: str
    resource_name: str
    gpu_resource_name: str
    sharing_mode: str
    mig_profile: str | None
    hard: float
    used: float | None
    observed_at: dt.datetime
    event_type: str | None
    is_deleted: bool
    resource_version: str | None
    source_line: int


@dataclass(frozen=True)
class NodeResource:
    """One GPU resource a node advertises, as observed once, with the node's GPU labels.

    `sharing_strategy`, `mig_strategy` and `gpu_product` are the NVIDIA GPU feature discovery
    labels (`nvidia.com/gpu.sharing-strategy`, `nvidia.com/mig.strategy`,
    `nvidia.com/gpu.product`); `timeslice_replicas` is the replicas annotation when set, else
    the `nvidia.com/gpu.replicas` label. A node time-sliced without renaming advertises
    `nvidia.com/gpu` replicas: its `sharing_strategy` says so.
    """

    cluster: str
    node_name: str | None
    node_uid: str
    resource_name: str
    sharing_mode: str
    mig_profile: str | None
    capacity: int | None
    allocatable: int | None
    gpu_product: str | None
    sharing_strategy: str | None
    mig_strategy: str | None
    timeslice_replicas: int | None
    is_unschedulable: bool
    creation_at: dt.datetime | None
    observed_at: dt.datetime
    event_type: str | None
    is_deleted: bool
    resource_version: str | None
    source_line: int


@dataclass(frozen=True)
class ListSnapshot:
    """A complete list of one resource across all namespaces, as the live client read it.

    An object whose last observation is older than a later snapshot of its resource was
    absent from that snapshot: it was deleted before `observed_at` (a deletion the watch
    missed while its resourceVersion had expired). File ingests record no snapshot, since
    a file may hold one namespace only.
    """

    cluster: str
    resource: str  # "pods", "namespaces", "resourcequotas", "nodes"
    resource_version: str | None
    observed_at: dt.datetime
    items_read: int
    source_line: int


RAW_TABLES: dict[str, type] = {
    POD_ALLOCATIONS_TABLE: PodAllocation,
    PENDING_REQUESTS_TABLE: PendingRequest,
    NAMESPACES_TABLE: NamespaceObservation,
    RESOURCE_QUOTAS_TABLE: ResourceQuotaObservation,
    NODES_TABLE: NodeResource,
    LIST_SNAPSHOTS_TABLE: ListSnapshot,
}
