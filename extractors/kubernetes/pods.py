"""A Pod's GPU requests as allocation rows, and as pending requests while it waits (pure).

One row per GPU resource request of each init and app container (the request; the limit when
no request is set). The container's status gives its interval (see `PodAllocation`); a pod in
phase Pending also yields a `PendingRequest` per request with the scheduler's reason.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from extractors.kubernetes.fields import (
    BadRecord,
    GpuResource,
    Observation,
    ParseOptions,
    annotated_replicas,
    gpu_resource,
    mapping,
    parse_gpu_quantity,
    read_meta,
    seen,
    sequence,
    text,
    timestamp,
)
from extractors.kubernetes.records import (
    PENDING_REQUESTS_TABLE,
    POD_ALLOCATIONS_TABLE,
    PendingRequest,
    PodAllocation,
)
from extractors.records import ParseResult

TERMINAL_PHASES = ("Succeeded", "Failed")


@dataclass(frozen=True)
class _ContainerRequest:
    container_name: str
    container_type: str
    resource_name: str
    quantity: int
    gpu: GpuResource


def _containers(
    part: Mapping[str, object], prefix: str, init_key: str, app_key: str
) -> Iterator[tuple[str, str, Mapping[str, object], str | None]]:
    """(container type, where, entry, name) of every init, then app, container entry of a pod's
    spec or status: `spec.containers[0]`, `status.initContainerStatuses[1]`."""
    for container_type, key in (("init", init_key), ("app", app_key)):
        for index, entry in enumerate(sequence(part.get(key), f"{prefix}.{key}")):
            where = f"{prefix}.{key}[{index}]"
            entry = mapping(entry, where)
            yield container_type, where, entry, text(entry.get("name"))


def _container_requests(spec: Mapping[str, object]) -> list[_ContainerRequest]:
    requests = []
    for container_type, where, container, name in _containers(
        spec, "spec", "initContainers", "containers"
    ):
        if name is None:
            raise BadRecord(f"{where}.name", "container has no name")
        resources = mapping(container.get("resources"), f"{where}.resources")
        req = mapping(resources.get("requests"), f"{where}.resources.requests")
        lim = mapping(resources.get("limits"), f"{where}.resources.limits")
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
                raise BadRecord(
                    f"{where}.resources",
                    f"{resource_name}: request {values['requests']} differs from "
                    f"limit {values['limits']}",
                )
            quantity = next(iter(values.values()))
            if quantity == 0:
                continue
            requests.append(_ContainerRequest(name, container_type, resource_name, quantity, gpu))
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
    for container_type, where, entry, name in _containers(
        status, "status", "initContainerStatuses", "containerStatuses"
    ):
        if name is None:
            continue
        state = mapping(entry.get("state"), f"{where}.state")
        last = mapping(entry.get("lastState"), f"{where}.lastState")
        running = mapping(state.get("running"), f"{where}.state.running")
        terminated = mapping(state.get("terminated"), f"{where}.state.terminated")
        last_terminated = mapping(last.get("terminated"), f"{where}.lastState.terminated")
        starts = [
            timestamp(running.get("startedAt"), f"{where}.state.running.startedAt"),
            timestamp(terminated.get("startedAt"), f"{where}.state.terminated.startedAt"),
            timestamp(last_terminated.get("startedAt"), f"{where}.lastState.terminated.startedAt"),
        ]
        known = [s for s in starts if s is not None]
        exit_code = terminated.get("exitCode")
        restarts = entry.get("restartCount")
        runs[(container_type, name)] = _ContainerRun(
            container_id=text(entry.get("containerID")),
            started_at=min(known) if known else None,
            finished_at=timestamp(
                terminated.get("finishedAt"), f"{where}.state.terminated.finishedAt"
            ),
            termination_reason=text(terminated.get("reason")),
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
    for index, entry in enumerate(sequence(status.get("conditions"), "status.conditions")):
        entry = mapping(entry, f"status.conditions[{index}]")
        at = timestamp(
            entry.get("lastTransitionTime"), f"status.conditions[{index}].lastTransitionTime"
        )
        if at is not None:
            transitions.append(at)
        if entry.get("type") != "PodScheduled":
            continue
        if entry.get("status") == "True":
            scheduled_at = at
        else:
            reason, message = text(entry.get("reason")), text(entry.get("message"))
    return _Conditions(scheduled_at, reason, message, max(transitions, default=None))


def pod_rows(result: ParseResult, observation: Observation, options: ParseOptions) -> None:
    """An allocation row per GPU request of the pod, and a pending row each while Pending."""
    obj = mapping(observation.obj, "object")
    meta = read_meta(obj)
    spec = mapping(obj.get("spec"), "spec")
    status = mapping(obj.get("status"), "status")
    runs = _container_runs(status)
    conditions = _conditions(status)
    declared = annotated_replicas(meta, options)
    if declared is None:
        declared = options.timeslice_replicas
    phase = text(status.get("phase"))
    provenance = seen(observation, meta)
    pod_started_at = timestamp(status.get("startTime"), "status.startTime")
    for request in _container_requests(spec):
        run = runs.get((request.container_type, request.container_name))
        asked: dict[str, Any] = {
            "cluster": options.cluster,
            "namespace": meta.namespace,
            "pod_uid": meta.uid,
            "pod_name": meta.name,
            "node_name": text(spec.get("nodeName")),
            "container_name": request.container_name,
            "container_type": request.container_type,
            "resource_name": request.resource_name,
            "quantity": request.quantity,
            "sharing_mode": request.gpu.sharing_mode,
            "mig_profile": request.gpu.mig_profile,
            "creation_at": meta.creation_at,
        }
        started_at = run.started_at if run else None
        finished_at, finished_source = None, None
        if started_at is not None and run is not None and run.finished_at is not None:
            finished_at, finished_source = run.finished_at, "terminated"
        elif started_at is not None and provenance["is_deleted"]:
            finished_at = min(filter(None, (meta.deletion_at, observation.observed_at)))
            finished_source = "deleted"
        elif started_at is not None and phase in TERMINAL_PHASES:
            finished_at, finished_source = conditions.last_transition_at, "pod_conditions"
            if finished_at is None:
                finished_source = None
        result.add(
            POD_ALLOCATIONS_TABLE,
            PodAllocation(
                **asked,
                phase=phase,
                pod_reason=text(status.get("reason")),
                container_id=run.container_id if run else None,
                timeslice_replicas=declared if request.gpu.sharing_mode == "timeslice" else None,
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
                deletion_at=meta.deletion_at,
                list_resource_version=observation.list_resource_version,
                **provenance,
            ),
        )
        if phase == "Pending":
            result.add(
                PENDING_REQUESTS_TABLE,
                PendingRequest(
                    **asked,
                    unschedulable_reason=conditions.unschedulable_reason,
                    unschedulable_message=conditions.unschedulable_message,
                    **provenance,
                ),
            )
