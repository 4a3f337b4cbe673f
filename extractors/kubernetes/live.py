"""Live Kubernetes evidence: list, then watch, pods, namespaces, resource quotas and nodes.

One thread per resource lists it (when there is no saved resourceVersion, or after the
server answered 410 Gone) and watches it from the last resourceVersion, putting what it
reads on one queue. The main thread lands the queue in batches (every `batch_events`
events or `batch_seconds` seconds) and, only after a batch landed, writes the last
resourceVersion of each resource to `<home>/state/kubernetes/<cluster>.json`. A restart
resumes each watch from there: events read but not landed before a crash are read again,
none is skipped. A re-list after 410 is a complete snapshot (`kubernetes_list_snapshots`):
staging reads a pod missing from a later snapshot as gone by then.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty, Queue

from kubernetes import client as k8s_client

from extractors.kubernetes.client import (
    RESOURCES,
    Connection,
    Failed,
    Item,
    Listed,
    Watched,
    Watcher,
    now,
    state_name,
)
from extractors.kubernetes.files import SOURCE, KubernetesLiveError, LiveOptions
from extractors.kubernetes.parse import Observation, ParseOptions, parse_observations
from extractors.kubernetes.records import LIST_SNAPSHOTS_TABLE, RAW_TABLES, ListSnapshot
from extractors.landing import LandingReport, land
from extractors.state import Cursor, Stream

# The last resourceVersion of each resource whose events have landed (see `watch_state`).
RESOURCE_VERSIONS = Cursor(
    source=SOURCE,
    key="resource_versions",
    decode=lambda saved: {str(k): str(v) for k, v in saved.items() if v},
    encode=lambda versions: dict(sorted(versions.items())),
    what="watch state",
)


def watch_state(home: Path, cluster: str, server: str) -> Stream[dict[str, str]]:
    """`<home>/state/kubernetes/<cluster>.json` (the name made safe by `state_name`)."""
    return RESOURCE_VERSIONS.stream(home, state_name(cluster), cluster=cluster, server=server)


def _compact(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _batch(
    items: Sequence[Listed | Watched], options: ParseOptions
) -> tuple[bytes, list[Observation], list[ListSnapshot]]:
    """The batch content (one JSON line per list marker, item and event), its observations
    numbered by line, and a snapshot row per list."""
    lines: list[str] = []
    observations: list[Observation] = []
    snapshots: list[ListSnapshot] = []
    for item in items:
        observed = item.observed_at.isoformat() + "Z"
        if isinstance(item, Listed):
            lines.append(
                _compact(
                    {
                        "list": item.resource.name,
                        "resourceVersion": item.resource_version,
                        "observed_at": observed,
                        "items": len(item.items),
                    }
                )
            )
            snapshots.append(
                ListSnapshot(
                    cluster=options.cluster,
                    resource=item.resource.name,
                    resource_version=item.resource_version,
                    observed_at=item.observed_at,
                    items_read=len(item.items),
                    source_line=len(lines),
                )
            )
            for obj in item.items:
                lines.append(
                    _compact(
                        {
                            "resource": item.resource.name,
                            "listResourceVersion": item.resource_version,
                            "observed_at": observed,
                            "object": obj,
                        }
                    )
                )
                observations.append(
                    Observation(
                        line=len(lines),
                        obj=obj,
                        observed_at=item.observed_at,
                        list_resource_version=item.resource_version,
                        kind=item.resource.kind,
                    )
                )
        else:
            lines.append(
                _compact(
                    {
                        "resource": item.resource.name,
                        "type": item.event_type,
                        "observed_at": observed,
                        "object": item.obj,
                    }
                )
            )
            observations.append(
                Observation(
                    line=len(lines),
                    obj=item.obj,
                    observed_at=item.observed_at,
                    event_type=item.event_type,
                    kind=item.resource.kind,
                )
            )
    return ("\n".join(lines) + "\n").encode(), observations, snapshots


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass
class _Run:
    """What the main thread holds between batches."""

    home: Path
    connection: Connection
    options: ParseOptions
    state: Stream[dict[str, str]]
    versions: dict[str, str]
    log: Callable[[str], None]
    reports: list[LandingReport] = field(default_factory=list)
    pending: list[Listed | Watched] = field(default_factory=list)
    pending_size: int = 0
    pending_events: int = 0
    events_landed: int = 0
    batch_began: float | None = None

    def add(self, item: Listed | Watched) -> None:
        self.pending.append(item)
        if isinstance(item, Listed):
            self.pending_size += len(item.items)
        else:
            self.pending_size += 1
            self.pending_events += 1
        if self.batch_began is None:
            self.batch_began = time.monotonic()

    def flush(self) -> None:
        if not self.pending:
            return
        content, observations, snapshots = _batch(self.pending, self.options)
        result = parse_observations(observations, self.options)
        for snapshot in snapshots:
            result.add(LIST_SNAPSHOTS_TABLE, snapshot)
        report = land(
            self.home,
            source=SOURCE,
            file=f"{self.connection.server} (watch)",
            content=content,
            options=f"{self.options.fingerprint()};live",
            result=result,
            row_types=RAW_TABLES,
            extracted_at=now(),
            extracted_at_basis="live_clock",
        )
        for item in self.pending:
            if isinstance(item, Listed) and item.after_expiry:
                self.log(
                    f"kubernetes {self.options.cluster}: {item.resource.name} watch expired "
                    f"(410 Gone); re-listed {len(item.items)} at resourceVersion "
                    f"{item.resource_version}"
                )
            if item.resource_version is not None:
                self.versions[item.resource.name] = item.resource_version
        self.state.save(self.versions)
        self.reports.append(report)
        self.events_landed += self.pending_events
        versions = ", ".join(f"{k} {v}" for k, v in sorted(self.versions.items()))
        self.log(
            f"kubernetes {self.options.cluster}: landed {self.pending_events} events and "
            f"{self.pending_size - self.pending_events} listed objects -> batch "
            f"{report.batch_id} (resourceVersions: {versions})"
        )
        self.pending, self.pending_size, self.pending_events = [], 0, 0
        self.batch_began = None


def run_live(
    home: Path,
    connection: Connection,
    options: ParseOptions,
    live: LiveOptions,
    *,
    log: Callable[[str], None] = _stderr,
) -> list[LandingReport]:
    """List and watch until `max_events` watch events landed or `timeout_seconds` passed
    (forever when neither is set); land in batches and resume from the saved state."""
    state = watch_state(home, options.cluster, connection.server)
    run = _Run(home, connection, options, state, state.load() or {}, log)
    to_list = {r.name for r in RESOURCES if r.name not in run.versions}
    resumed = ", ".join(f"{k} {v}" for k, v in sorted(run.versions.items())) or "nothing saved"
    log(f"kubernetes {options.cluster}: {connection.server}: resuming from {resumed}")
    deadline = None if live.timeout_seconds is None else time.monotonic() + live.timeout_seconds
    out: Queue[Item] = Queue()
    stop = threading.Event()
    api = k8s_client.CoreV1Api(connection.api_client)
    watchers = [
        Watcher(
            api,
            resource,
            run.versions.get(resource.name),
            out,
            stop,
            deadline=deadline,
            watch_seconds=live.watch_seconds,
            page_size=live.page_size,
        )
        for resource in RESOURCES
    ]
    failure: Failed | None = None
    for watcher in watchers:
        watcher.thread.start()
    try:
        while True:
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                break
            seen = run.events_landed + run.pending_events
            if live.max_events is not None and not to_list and seen >= live.max_events:
                break
            wait = live.batch_seconds
            if run.batch_began is not None:
                wait = run.batch_began + live.batch_seconds - now
            if deadline is not None:
                wait = min(wait, deadline - now)
            try:
                item = out.get(timeout=max(0.0, wait))
            except Empty:
                item = None
            if isinstance(item, Failed):
                failure = item
                break
            if item is not None:
                run.add(item)
                if isinstance(item, Listed):
                    to_list.discard(item.resource.name)
            full = run.pending_size >= live.batch_events
            due = (
                run.batch_began is not None
                and time.monotonic() - run.batch_began >= live.batch_seconds
            )
            if full or due:
                run.flush()
    finally:
        stop.set()
        for watcher in watchers:
            watcher.halt()
    run.flush()
    joined_by = time.monotonic() + 5
    for watcher in watchers:
        watcher.thread.join(timeout=max(0.0, joined_by - time.monotonic()))
    if failure is not None:
        raise KubernetesLiveError(
            f"{connection.server}: {failure.resource.name}: {failure.message}"
        )
    log(
        f"kubernetes {options.cluster}: stopped after {run.events_landed} watch events in "
        f"{len(run.reports)} batches"
    )
    return run.reports
