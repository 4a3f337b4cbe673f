"""Parse Kubernetes API objects into GPU allocation evidence (pure; no I/O).

Input is either a v1 List (`kubectl get pods,namespaces,resourcequotas -A -o json`, a
PodList, a NamespaceList, ...) or a stream of watch events (`{"type": ..., "object": ...}`,
one JSON object per line or pretty-printed one after another, as `kubectl get -w -o json
--output-watch-events` writes them). The live client builds the same `Observation`s from
the API and parses them with `parse_observations`.

Counting: every List item and every watch event is one record read. A record is landed
when it parses, even if it yields no row (a pod without GPU requests, a BOOKMARK event, a
quota without GPU resources); it is quarantined (never partly landed) when it cannot be
read: no uid, a GPU quantity that is not a whole number, a bad timestamp, an unsupported
kind, a watch ERROR event.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TypeGuard

from extractors.kubernetes.records import (
    NAMESPACES_TABLE,
    NODES_TABLE,
    PENDING_REQUESTS_TABLE,
    POD_ALLOCATIONS_TABLE,
    RESOURCE_QUOTAS_TABLE,
    NamespaceObservation,
    NodeResource,
    PendingRequest,
    PodAllocation,
    ResourceQuotaObservation,
)
from extractors.records import ParseResult
from extractors.timeparse import parse_timestamp

DEFAULT_TENANT_LABEL = "gpuledger.io/tenant"
DEFAULT_PROJECT_LABEL = "gpuledger.io/project"
DEFAULT_REPLICAS_ANNOTATION = "gpuledger.io/timeslice-replicas"

GPU_RESOURCE = "nvidia.com/gpu"
SHARED_GPU_RESOURCE = "nvidia.com/gpu.shared"
MIG_PREFIX = "nvidia.com/mig-"
SHARED_SUFFIX = ".shared"
QUOTA_PREFIXES = ("requests.", "limits.")

NODE_PRODUCT_LABEL = "nvidia.com/gpu.product"
NODE_SHARING_LABEL = "nvidia.com/gpu.sharing-strategy"
NODE_REPLICAS_LABEL = "nvidia.com/gpu.replicas"
NODE_MIG_STRATEGY_LABEL = "nvidia.com/mig.strategy"

OBJECT_EVENTS = ("ADDED", "MODIFIED", "DELETED")
TERMINAL_PHASES = ("Succeeded", "Failed")
KINDS = ("Pod", "Namespace", "ResourceQuota", "Node")

_WHOLE_NUMBER = re.compile(r"^\+?[0-9]+$")
_QUANTITY = re.compile(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(e[+-]?[0-9]+|[A-Za-z]{0,2})$")
_QUANTITY_SUFFIXES = {
    "": 1.0,
    "m": 1e-3,
    "k": 1e3,
    "M": 1e6,
    "G": 1e9,
    "T": 1e12,
    "P": 1e15,
    "E": 1e18,
    "Ki": 2.0**10,
    "Mi": 2.0**20,
    "Gi": 2.0**30,
    "Ti": 2.0**40,
    "Pi": 2.0**50,
    "Ei": 2.0**60,
}


class KubernetesFormatError(ValueError):
    """The input as a whole is not a Kubernetes List or watch stream."""


class _BadRecord(ValueError):
    """One record cannot be read: the field and the reason."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(reason)
        self.field = field
        self.reason = reason


@dataclass(frozen=True)
class ParseOptions:
    """What the parser needs beyond the objects; part of the batch identity."""

    cluster: str = "default"
    timeslice_replicas: int | None = None
    tenant_label: str = DEFAULT_TENANT_LABEL
    project_label: str = DEFAULT_PROJECT_LABEL
    replicas_annotation: str = DEFAULT_REPLICAS_ANNOTATION

    def fingerprint(self) -> str:
        return (
            f"cluster={self.cluster};timeslice_replicas={self.timeslice_replicas or ''};"
            f"tenant_label={self.tenant_label};project_label={self.project_label};"
            f"replicas_annotation={self.replicas_annotation}"
        )


@dataclass(frozen=True)
class Observation:
    """One object as seen once: an item of a List (event_type None) or a watch event."""

    line: int
    obj: object
    observed_at: dt.datetime
    event_type: str | None = None
    list_resource_version: str | None = None
    kind: str | None = None  # the item kind when the object has none (items of a PodList)
    where: str = ""  # how a message names the record: "items[3]" in a List file


@dataclass(frozen=True)
class GpuResource:
    sharing_mode: str
    mig_profile: str | None


def gpu_resource(name: str) -> GpuResource | None:
    """The sharing mode of an NVIDIA device-plugin resource name; None for other resources.

    `nvidia.com/gpu` is a whole GPU, `nvidia.com/mig-<profile>` a MIG instance, and the
    `.shared` names (time-slicing or MPS with renameByDefault) a time-sliced replica.
    """
    if name == GPU_RESOURCE:
        return GpuResource("whole", None)
    if name == SHARED_GPU_RESOURCE:
        return GpuResource("timeslice", None)
    if name.startswith(MIG_PREFIX) and len(name) > len(MIG_PREFIX):
        profile = name[len(MIG_PREFIX) :]
        if profile.endswith(SHARED_SUFFIX):
            return GpuResource("timeslice", profile[: -len(SHARED_SUFFIX)])
        return GpuResource("mig", profile)
    return None


def quota_gpu_resource(name: str) -> tuple[str, GpuResource] | None:
    """The device resource a quota key limits (`requests.nvidia.com/gpu` -> `nvidia.com/gpu`)."""
    for prefix in QUOTA_PREFIXES:
        if name.startswith(prefix):
            name = name[len(prefix) :]
            break
    gpu = gpu_resource(name)
    return None if gpu is None else (name, gpu)


def parse_gpu_quantity(value: object, field: str) -> int:
    """A device count: the API writes quantities as strings ("2"); some tools write numbers."""
    if isinstance(value, bool):
        raise _BadRecord(field, f"quantity {value!r} is not a whole number")
    if isinstance(value, int):
        count = value
    elif isinstance(value, float) and value.is_integer():
        count = int(value)
    elif isinstance(value, str) and _WHOLE_NUMBER.match(value.strip()):
        count = int(value.strip())
    else:
        raise _BadRecord(field, f"quantity {value!r} is not a whole number of devices")
    if count < 0:
        raise _BadRecord(field, f"quantity {value!r} is negative")
    return count


def parse_quantity(value: object, field: str) -> float:
    """A resource.Quantity ("4", "500m", "2Ki", "1e3") as a number."""
    if isinstance(value, bool):
        raise _BadRecord(field, f"quantity {value!r} is not a number")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        match = _QUANTITY.match(value.strip())
        if match:
            number, suffix = match.groups()
            if suffix.lower().startswith("e") and suffix[1:].lstrip("+-").isdigit():
                return float(number + suffix)
            if suffix in _QUANTITY_SUFFIXES:
                return float(number) * _QUANTITY_SUFFIXES[suffix]
    raise _BadRecord(field, f"quantity {value!r} is not a Kubernetes quantity")


def _timestamp(value: object, field: str) -> dt.datetime | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise _BadRecord(field, f"timestamp {value!r} is not text")
    try:
        return parse_timestamp(value)
    except ValueError:
        raise _BadRecord(field, f"invalid timestamp {value!r}") from None


def _mapping(value: object, field: str) -> Mapping[str, object]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _BadRecord(field, f"expected an object, got {type(value).__name__}")
    return value


def _sequence(value: object, field: str) -> list[object]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _BadRecord(field, f"expected a list, got {type(value).__name__}")
    return value


def _text(value: object) -> str | None:
    if value is None or value == "":
        return None
    return str(value)


def _replicas(value: object, field: str) -> int | None:
    if value is None or value == "":
        return None
    count = parse_gpu_quantity(value, field)
    if count < 1:
        raise _BadRecord(field, f"replica count {value!r} is not positive")
    return count


@dataclass(frozen=True)
class _Meta:
    uid: str
    name: str | None
    namespace: str | None
    creation_at: dt.datetime | None
    deletion_at: dt.datetime | None
    resource_version: str | None
    labels: Mapping[str, object]
    annotations: Mapping[str, object]
    owner: tuple[str | None, str | None, str | None]


def _meta(obj: Mapping[str, object], kind: str) -> _Meta:
    meta = _mapping(obj.get("metadata"), "metadata")
    uid = _text(meta.get("uid"))
    if uid is None:
        raise _BadRecord("metadata.uid", "no metadata.uid")
    owners = [
        o
        for o in _sequence(meta.get("ownerReferences"), "metadata.ownerReferences")
        if isinstance(o, Mapping)
    ]
    owner = next((o for o in owners if o.get("controller") is True), owners[0] if owners else {})
    return _Meta(
        uid=uid,
        name=_text(meta.get("name")),
        namespace=_text(meta.get("namespace")),
        creation_at=_timestamp(meta.get("creationTimestamp"), "metadata.creationTimestamp"),
        deletion_at=_timestamp(meta.get("deletionTimestamp"), "metadata.deletionTimestamp"),
        resource_version=_text(meta.get("resourceVersion")),
        labels=_mapping(meta.get("labels"), "metadata.labels"),
        annotations=_mapping(meta.get("annotations"), "metadata.annotations"),
        owner=(_text(owner.get("kind")), _text(owner.get("name")), _text(owner.get("uid"))),
    )


@dataclass(frozen=True)
class _ContainerRequest:
    container_name: str
    container_type: str
    resource_name: str
    quantity: int
    gpu: GpuResource


def _container_requests(spec: Mapping[str, object]) -> list[_ContainerRequest]:
    requests = []
    for container_type, key in (("init", "initContainers"), ("app", "containers")):
        for index, container in enumerate(_sequence(spec.get(key), f"spec.{key}")):
            where = f"spec.{key}[{index}]"
            container = _mapping(container, where)
            name = _text(container.get("name"))
            if name is None:
                raise _BadRecord(f"{where}.name", "container has no name")
            resources = _mapping(container.get("resources"), f"{where}.resources")
            req = _mapping(resources.get("requests"), f"{where}.resources.requests")
            lim = _mapping(resources.get("limits"), f"{where}.resources.limits")
            for resource_name in sorted(set(req) | set(lim)):
                gpu = gpu_resource(resource_name)
                if gpu is None:
                    continue
                values = {}
                for part, table in (("requests", req), ("limits", lim)):
                    if resource_name in table:
                        field = f"{where}.resources.{part}.{resource_name}"
                        values[part] = parse_gpu_quantity(table[resource_name], field)
                if len(set(values.values())) > 1:
                    raise _BadRecord(
                        f"{where}.resources",
                        f"{resource_name}: request {values['requests']} differs from "
                        f"limit {values['limits']}",
                    )
                quantity = next(iter(values.values()))
                if quantity == 0:
                    continue
                requests.append(
                    _ContainerRequest(name, container_type, resource_name, quantity, gpu)
                )
    return requests


@dataclass(frozen=True)
class _ContainerRun:
    container_id: str | None
    started_at: dt.datetime | None
    finished_at: dt.datetime | None
    termination_reason: str | None
    exit_code: int | None
    restart_count: int | None


def _container_runs(status: Mapping[str, object]) -> dict[tuple[str, str], _ContainerRun]:
    runs = {}
    for container_type, key in (("init", "initContainerStatuses"), ("app", "containerStatuses")):
        for index, entry in enumerate(_sequence(status.get(key), f"status.{key}")):
            where = f"status.{key}[{index}]"
            entry = _mapping(entry, where)
            name = _text(entry.get("name"))
            if name is None:
                continue
            state = _mapping(entry.get("state"), f"{where}.state")
            last = _mapping(entry.get("lastState"), f"{where}.lastState")
            running = _mapping(state.get("running"), f"{where}.state.running")
            terminated = _mapping(state.get("terminated"), f"{where}.state.terminated")
            last_terminated = _mapping(last.get("terminated"), f"{where}.lastState.terminated")
            starts = [
                _timestamp(running.get("startedAt"), f"{where}.state.running.startedAt"),
                _timestamp(terminated.get("startedAt"), f"{where}.state.terminated.startedAt"),
                _timestamp(
                    last_terminated.get("startedAt"), f"{where}.lastState.terminated.startedAt"
                ),
            ]
            known = [s for s in starts if s is not None]
            exit_code = terminated.get("exitCode")
            restarts = entry.get("restartCount")
            runs[(container_type, name)] = _ContainerRun(
                container_id=_text(entry.get("containerID")),
                started_at=min(known) if known else None,
                finished_at=_timestamp(
                    terminated.get("finishedAt"), f"{where}.state.terminated.finishedAt"
                ),
                termination_reason=_text(terminated.get("reason")),
                exit_code=exit_code if isinstance(exit_code, int) else None,
                restart_count=restarts if isinstance(restarts, int) else None,
            )
    return runs


@dataclass(frozen=True)
class _Conditions:
    scheduled_at: dt.datetime | None
    unschedulable_reason: str | None
    unschedulable_message: str | None
    last_transition_at: dt.datetime | None


def _conditions(status: Mapping[str, object]) -> _Conditions:
    scheduled_at = reason = message = None
    transitions = []
    for index, entry in enumerate(_sequence(status.get("conditions"), "status.conditions")):
        entry = _mapping(entry, f"status.conditions[{index}]")
        at = _timestamp(
            entry.get("lastTransitionTime"), f"status.conditions[{index}].lastTransitionTime"
        )
        if at is not None:
            transitions.append(at)
        if entry.get("type") != "PodScheduled":
            continue
        if entry.get("status") == "True":
            scheduled_at = at
        else:
            reason, message = _text(entry.get("reason")), _text(entry.get("message"))
    return _Conditions(scheduled_at, reason, message, max(transitions, default=None))


def _pod(result: ParseResult, observation: Observation, options: ParseOptions) -> None:
    obj = _mapping(observation.obj, "object")
    meta = _meta(obj, "Pod")
    spec = _mapping(obj.get("spec"), "spec")
    status = _mapping(obj.get("status"), "status")
    requests = _container_requests(spec)
    runs = _container_runs(status)
    conditions = _conditions(status)
    replicas = _replicas(
        meta.annotations.get(options.replicas_annotation),
        f"metadata.annotations.{options.replicas_annotation}",
    )
    if replicas is None:
        replicas = options.timeslice_replicas
    phase = _text(status.get("phase"))
    is_deleted = observation.event_type == "DELETED"
    pod_started_at = _timestamp(status.get("startTime"), "status.startTime")
    node_name = _text(spec.get("nodeName"))
    for request in requests:
        run = runs.get((request.container_type, request.container_name))
        started_at = run.started_at if run else None
        finished_at, finished_source = None, None
        if started_at is not None and run is not None and run.finished_at is not None:
            finished_at, finished_source = run.finished_at, "terminated"
        elif started_at is not None and is_deleted:
            finished_at = min(filter(None, (meta.deletion_at, observation.observed_at)))
            finished_source = "deleted"
        elif started_at is not None and phase in TERMINAL_PHASES:
            finished_at, finished_source = conditions.last_transition_at, "pod_conditions"
            if finished_at is None:
                finished_source = None
        result.add(
            POD_ALLOCATIONS_TABLE,
            PodAllocation(
                cluster=options.cluster,
                pod_uid=meta.uid,
                pod_name=meta.name,
                namespace=meta.namespace,
                node_name=node_name,
                phase=phase,
                pod_reason=_text(status.get("reason")),
                container_name=request.container_name,
                container_type=request.container_type,
                container_id=run.container_id if run else None,
                resource_name=request.resource_name,
                quantity=request.quantity,
                sharing_mode=request.gpu.sharing_mode,
                mig_profile=request.gpu.mig_profile,
                timeslice_replicas=replicas if request.gpu.sharing_mode == "timeslice" else None,
                started_at=started_at,
                finished_at=finished_at,
                finished_at_source=finished_source,
                termination_reason=run.termination_reason if run else None,
                exit_code=run.exit_code if run else None,
                restart_count=run.restart_count if run else None,
                pod_started_at=pod_started_at,
                scheduled_at=conditions.scheduled_at,
                owner_kind=meta.owner[0],
                owner_name=meta.owner[1],
                owner_uid=meta.owner[2],
                creation_at=meta.creation_at,
                deletion_at=meta.deletion_at,
                observed_at=observation.observed_at,
                event_type=observation.event_type,
                is_deleted=is_deleted,
                resource_version=meta.resource_version,
                list_resource_version=observation.list_resource_version,
                source_line=observation.line,
            ),
        )
        if phase == "Pending":
            result.add(
                PENDING_REQUESTS_TABLE,
                PendingRequest(
                    cluster=options.cluster,
                    namespace=meta.namespace,
                    pod_uid=meta.uid,
                    pod_name=meta.name,
                    node_name=node_name,
                    container_name=request.container_name,
                    container_type=request.container_type,
                    resource_name=request.resource_name,
                    quantity=request.quantity,
                    sharing_mode=request.gpu.sharing_mode,
                    mig_profile=request.gpu.mig_profile,
                    unschedulable_reason=conditions.unschedulable_reason,
                    unschedulable_message=conditions.unschedulable_message,
                    creation_at=meta.creation_at,
                    observed_at=observation.observed_at,
                    event_type=observation.event_type,
                    is_deleted=is_deleted,
                    resource_version=meta.resource_version,
                    source_line=observation.line,
                ),
            )


def _namespace(result: ParseResult, observation: Observation, options: ParseOptions) -> None:
    obj = _mapping(observation.obj, "object")
    meta = _meta(obj, "Namespace")
    if meta.name is None:
        raise _BadRecord("metadata.name", "no metadata.name")
    status = _mapping(obj.get("status"), "status")
    is_deleted = observation.event_type == "DELETED"
    # A namespace's deletionTimestamp is when its deletion was asked for (no grace period);
    # a DELETED event without one is dated by its observation.
    deletion_at = meta.deletion_at
    if is_deleted and deletion_at is None:
        deletion_at = observation.observed_at
    tenant = meta.labels.get(options.tenant_label)
    project = meta.labels.get(options.project_label)
    result.add(
        NAMESPACES_TABLE,
        NamespaceObservation(
            cluster=options.cluster,
            name=meta.name,
            namespace_uid=meta.uid,
            labels=json.dumps(dict(meta.labels), sort_keys=True, separators=(",", ":")),
            tenant_label_key=options.tenant_label,
            tenant_label_value=_text(tenant),
            project_label_key=options.project_label,
            project_label_value=_text(project),
            phase=_text(status.get("phase")),
            creation_at=meta.creation_at,
            deletion_at=deletion_at,
            observed_at=observation.observed_at,
            event_type=observation.event_type,
            is_deleted=is_deleted,
            resource_version=meta.resource_version,
            list_resource_version=observation.list_resource_version,
            source_line=observation.line,
        ),
    )


def _resource_quota(result: ParseResult, observation: Observation, options: ParseOptions) -> None:
    obj = _mapping(observation.obj, "object")
    meta = _meta(obj, "ResourceQuota")
    spec_hard = _mapping(_mapping(obj.get("spec"), "spec").get("hard"), "spec.hard")
    status = _mapping(obj.get("status"), "status")
    status_hard = _mapping(status.get("hard"), "status.hard")
    used = _mapping(status.get("used"), "status.used")
    hard, hard_field = (status_hard, "status.hard") if status_hard else (spec_hard, "spec.hard")
    for resource_name in sorted(hard):
        limited = quota_gpu_resource(resource_name)
        if limited is None:
            continue
        device_resource, gpu = limited
        used_value = used.get(resource_name)
        result.add(
            RESOURCE_QUOTAS_TABLE,
            ResourceQuotaObservation(
                cluster=options.cluster,
                namespace=meta.namespace,
                quota_name=meta.name,
                quota_uid=meta.uid,
                resource_name=resource_name,
                gpu_resource_name=device_resource,
                sharing_mode=gpu.sharing_mode,
                mig_profile=gpu.mig_profile,
                hard=parse_quantity(hard[resource_name], f"{hard_field}.{resource_name}"),
                used=None
                if used_value is None
                else parse_quantity(used_value, f"status.used.{resource_name}"),
                observed_at=observation.observed_at,
                event_type=observation.event_type,
                is_deleted=observation.event_type == "DELETED",
                resource_version=meta.resource_version,
                source_line=observation.line,
            ),
        )


def _node(result: ParseResult, observation: Observation, options: ParseOptions) -> None:
    obj = _mapping(observation.obj, "object")
    meta = _meta(obj, "Node")
    spec = _mapping(obj.get("spec"), "spec")
    status = _mapping(obj.get("status"), "status")
    capacity = _mapping(status.get("capacity"), "status.capacity")
    allocatable = _mapping(status.get("allocatable"), "status.allocatable")
    replicas = _replicas(
        meta.annotations.get(options.replicas_annotation),
        f"metadata.annotations.{options.replicas_annotation}",
    )
    if replicas is None:
        replicas = _replicas(
            meta.labels.get(NODE_REPLICAS_LABEL), f"metadata.labels.{NODE_REPLICAS_LABEL}"
        )
    for resource_name in sorted(set(capacity) | set(allocatable)):
        gpu = gpu_resource(resource_name)
        if gpu is None:
            continue
        counts = {}
        for part, table in (("capacity", capacity), ("allocatable", allocatable)):
            value = table.get(resource_name)
            counts[part] = (
                None
                if value is None
                else parse_gpu_quantity(value, f"status.{part}.{resource_name}")
            )
        if not any(counts.values()):
            continue
        result.add(
            NODES_TABLE,
            NodeResource(
                cluster=options.cluster,
                node_name=meta.name,
                node_uid=meta.uid,
                resource_name=resource_name,
                sharing_mode=gpu.sharing_mode,
                mig_profile=gpu.mig_profile,
                capacity=counts["capacity"],
                allocatable=counts["allocatable"],
                gpu_product=_text(meta.labels.get(NODE_PRODUCT_LABEL)),
                sharing_strategy=_text(meta.labels.get(NODE_SHARING_LABEL)),
                mig_strategy=_text(meta.labels.get(NODE_MIG_STRATEGY_LABEL)),
                timeslice_replicas=replicas,
                is_unschedulable=spec.get("unschedulable") is True,
                creation_at=meta.creation_at,
                observed_at=observation.observed_at,
                event_type=observation.event_type,
                is_deleted=observation.event_type == "DELETED",
                resource_version=meta.resource_version,
                source_line=observation.line,
            ),
        )


_PARSERS = {
    "Pod": _pod,
    "Namespace": _namespace,
    "ResourceQuota": _resource_quota,
    "Node": _node,
}


def _compact(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _describe(obj: object) -> str:
    if not isinstance(obj, Mapping):
        return ""
    meta = obj.get("metadata")
    if not isinstance(meta, Mapping):
        return ""
    name = "/".join(str(meta[k]) for k in ("namespace", "name") if meta.get(k))
    return f" {name}" if name else ""


def _parse_one(result: ParseResult, observation: Observation, options: ParseOptions) -> None:
    if observation.event_type == "BOOKMARK":
        return
    if observation.event_type == "ERROR":
        status = observation.obj if isinstance(observation.obj, Mapping) else {}
        raise _BadRecord(
            "type",
            f"watch ERROR event: {status.get('code')} {status.get('reason')}: "
            f"{status.get('message')}",
        )
    if observation.event_type not in (None, *OBJECT_EVENTS):
        raise _BadRecord("type", f"unknown watch event type {observation.event_type!r}")
    if not isinstance(observation.obj, Mapping):
        raise _BadRecord("object", "the object is not a JSON object")
    kind = observation.obj.get("kind") or observation.kind
    if kind not in _PARSERS:
        if kind is None:
            raise _BadRecord("kind", "the object has no kind")
        raise _BadRecord("kind", f"kind {kind!r} is not ingested (only {', '.join(KINDS)})")
    # A record lands whole or not at all: rows go to a scratch result first.
    scratch = ParseResult()
    _PARSERS[str(kind)](scratch, observation, options)
    for table, rows in scratch.tables.items():
        for row in rows:
            result.add(table, row)


def parse_observations(observations: Iterable[Observation], options: ParseOptions) -> ParseResult:
    """Rows for every observation; a record that cannot be read is rejected whole."""
    result = ParseResult()
    for observation in observations:
        result.records_read += 1
        try:
            _parse_one(result, observation, options)
        except _BadRecord as bad:
            kind = observation.kind
            if isinstance(observation.obj, Mapping):
                kind = observation.obj.get("kind") or kind
            where = " ".join(
                p
                for p in (observation.where, f"{kind or 'object'}{_describe(observation.obj)}")
                if p
            )
            result.reject(
                observation.line,
                bad.field,
                f"{where}: {bad.reason}",
                _compact(
                    observation.obj
                    if observation.event_type is None
                    else {"type": observation.event_type, "object": observation.obj}
                ),
            )
    return result


def _line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def _list_observations(
    document: Mapping[str, object], observed_at: dt.datetime
) -> list[Observation]:
    items = document.get("items")
    if items is None:
        items = []
    if not isinstance(items, list):
        raise KubernetesFormatError("'items' is not a list")
    list_kind = document.get("kind")
    item_kind = None
    if isinstance(list_kind, str) and list_kind.endswith("List") and list_kind != "List":
        item_kind = list_kind[: -len("List")]
    meta = document.get("metadata")
    list_rv = _text(meta.get("resourceVersion")) if isinstance(meta, Mapping) else None
    return [
        Observation(
            line=index,
            obj=item,
            observed_at=observed_at,
            list_resource_version=list_rv,
            kind=item_kind,
            where=f"items[{index}]",
        )
        for index, item in enumerate(items)
    ]


def _is_event(value: object) -> TypeGuard[Mapping[str, object]]:
    return isinstance(value, Mapping) and "type" in value and "object" in value


def _stream_observations(
    text: str, start: int, observed_at: dt.datetime, result: ParseResult
) -> list[Observation]:
    """Watch events one after another; a record that is not JSON is rejected and skipped
    (parsing resumes at the next line that starts with `{`)."""
    decoder = json.JSONDecoder()
    observations = []
    position = counted = start
    line = _line_of(text, start)
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            return observations
        line += text.count("\n", counted, position)
        counted = position
        try:
            value, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            result.records_read += 1
            next_start = text.find("\n{", position)
            end = len(text) if next_start == -1 else next_start + 1
            result.reject(line, "json", f"invalid JSON: {exc}", text[position:end])
            position = end
            continue
        position = end
        if not _is_event(value):
            result.records_read += 1
            result.reject(
                line, "type", "not a watch event (expected 'type' and 'object')", _compact(value)
            )
            continue
        event_type = value.get("type")
        observations.append(
            Observation(
                line=line,
                obj=value.get("object"),
                observed_at=observed_at,
                event_type=str(event_type) if event_type is not None else "",
            )
        )


def parse_document(text: str, options: ParseOptions, observed_at: dt.datetime) -> ParseResult:
    """A v1 List or a watch event stream; `observed_at` is when it was captured.

    List items are numbered by their index in `items` (0-based); watch events by the line
    where they start (1-based).
    """
    start = len(text) - len(text.lstrip())
    if start == len(text):
        raise KubernetesFormatError("empty file: expected a Kubernetes List or watch events")
    if text[start] != "{":
        raise KubernetesFormatError(
            f"line {_line_of(text, start)}: expected a JSON object (a List or a watch event)"
        )
    try:
        first, end = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as exc:
        raise KubernetesFormatError(
            f"line {exc.lineno} column {exc.colno}: invalid JSON: {exc.msg}"
        ) from None
    rest = text[end:].strip()
    extra = len(text) - len(text[end:].lstrip())
    if _is_event(first):
        result = ParseResult()
        observations = _stream_observations(text, start, observed_at, result)
        parsed = parse_observations(observations, options)
        parsed.records_read += result.records_read
        parsed.rejected.extend(result.rejected)
        parsed.rejected.sort(key=lambda r: r.line)
        return parsed
    if not isinstance(first, Mapping) or "items" not in first:
        kind = first.get("kind") if isinstance(first, Mapping) else None
        if kind == "Status":
            raise KubernetesFormatError(
                f"the API returned a Status, not objects: {first.get('message')}"
            )
        raise KubernetesFormatError(
            "line 1: not a Kubernetes List ('items') or watch event ('type' and 'object')"
        )
    if rest:
        raise KubernetesFormatError(f"line {_line_of(text, extra)}: unexpected data after the List")
    return parse_observations(_list_observations(first, observed_at), options)
