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

import contextlib
import datetime as dt
import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty, Queue

from kubernetes import client as k8s_client
from kubernetes.client.exceptions import ApiException
from kubernetes.watch import Watch
from urllib3.exceptions import HTTPError
from urllib3.response import HTTPResponse

from extractors.kubernetes.client import (
    SOURCE,
    Connection,
    KubernetesLiveError,
    state_name,
)
from extractors.kubernetes.parse import Observation, ParseOptions, parse_observations
from extractors.kubernetes.records import LIST_SNAPSHOTS_TABLE, RAW_TABLES, ListSnapshot
from extractors.landing import LandingReport, land

GONE = 410
RETRIES = 3  # consecutive failures of one resource (connection, stream) before giving up


@dataclass(frozen=True)
class Resource:
    name: str
    kind: str
    list_method: str


RESOURCES = (
    Resource("pods", "Pod", "list_pod_for_all_namespaces"),
    Resource("namespaces", "Namespace", "list_namespace"),
    Resource("resourcequotas", "ResourceQuota", "list_resource_quota_for_all_namespaces"),
    Resource("nodes", "Node", "list_node"),
)


@dataclass(frozen=True)
class LiveOptions:
    batch_events: int = 500
    batch_seconds: float = 30.0
    max_events: int | None = None  # stop after this many watch events (lists do not count)
    timeout_seconds: float | None = None  # stop after this long
    watch_seconds: int = 300  # the server-side timeout of one watch request
    page_size: int = 500  # list page size (limit/continue)


@dataclass(frozen=True)
class Listed:
    resource: Resource
    items: list[object]
    resource_version: str | None
    observed_at: dt.datetime
    after_expiry: bool


@dataclass(frozen=True)
class Watched:
    resource: Resource
    event_type: str
    obj: object
    resource_version: str | None
    observed_at: dt.datetime


@dataclass(frozen=True)
class Failed:
    resource: Resource
    message: str


Item = Listed | Watched | Failed


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def _resource_version(obj: object) -> str | None:
    if isinstance(obj, dict):
        meta = obj.get("metadata")
        if isinstance(meta, dict) and meta.get("resourceVersion"):
            return str(meta["resourceVersion"])
    return None


def describe_error(exc: BaseException) -> str:
    if isinstance(exc, ApiException):
        message = exc.reason or ""
        try:
            body = json.loads(exc.body) if exc.body else {}
        except ValueError:
            body = {}
        if isinstance(body, dict) and body.get("message"):
            message = f"{message}: {body['message']}"
        return f"HTTP {exc.status} {message}".rstrip()
    reason = getattr(exc, "reason", None)
    return f"{type(exc).__name__}: {reason or exc}"


def state_path(home: Path, cluster: str) -> Path:
    return home / "state" / SOURCE / f"{state_name(cluster)}.json"


def load_state(path: Path) -> dict[str, str]:
    """The saved resourceVersion per resource ({} when never run)."""
    if not path.exists():
        return {}
    try:
        saved = json.loads(path.read_text())
        versions = saved["resource_versions"]
    except (ValueError, KeyError, TypeError) as exc:
        raise KubernetesLiveError(f"{path}: unreadable watch state ({exc})") from None
    return {str(k): str(v) for k, v in versions.items() if v}


def save_state(path: Path, cluster: str, server: str, versions: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "cluster": cluster,
        "server": server,
        "resource_versions": dict(sorted(versions.items())),
        "updated_at": _now().isoformat() + "Z",
    }
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(document, indent=2) + "\n")
    tmp.replace(path)


class _Watcher:
    """Lists and watches one resource in its own thread, putting items on `out`."""

    def __init__(
        self,
        api: k8s_client.CoreV1Api,
        resource: Resource,
        resource_version: str | None,
        out: Queue[Item],
        stop: threading.Event,
        options: LiveOptions,
        deadline: float | None,
    ) -> None:
        self.thread = threading.Thread(
            target=self._run, daemon=True, name=f"kubernetes-{resource.name}"
        )
        self._method = getattr(api, resource.list_method)
        self._resource = resource
        self._resource_version = resource_version
        self._out = out
        self._stop = stop
        self._options = options
        self._deadline = deadline
        self._lock = threading.Lock()
        self._response: HTTPResponse | None = None

    def halt(self) -> None:
        """Unblock a watch waiting on the server (called by the main thread after `stop`)."""
        with self._lock:
            if self._response is not None:
                _shut(self._response)

    def _open(self, *args: object, **kwargs: object) -> HTTPResponse:
        """The watch request Watch.stream makes; its response is closed at once when the
        run stopped meanwhile, so a halt can never miss it."""
        response = self._method(*args, **kwargs)
        with self._lock:
            self._response = response
            if self._stop.is_set():
                _shut(response)
        return response

    def _run(self) -> None:
        failures = 0
        after_expiry = False
        while not self._stop.is_set():
            window = self._window()
            if window is None:
                return
            try:
                if self._resource_version is None:
                    listed = self._list(after_expiry)
                    self._resource_version = listed.resource_version
                    self._out.put(listed)
                    failures = 0
                if self._watch_once(window):
                    failures = 0
            except ApiException as exc:
                if exc.status == GONE:
                    self._resource_version, after_expiry = None, True
                    continue
                self._fail(exc)
                return
            except (HTTPError, OSError, ValueError) as exc:
                if self._stop.is_set():
                    return
                failures += 1
                if failures >= RETRIES:
                    self._fail(exc)
                    return
                self._stop.wait(float(failures))

    def _window(self) -> int | None:
        if self._deadline is None:
            return self._options.watch_seconds
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            return None
        return max(1, min(self._options.watch_seconds, int(remaining + 0.999)))

    def _fail(self, exc: BaseException) -> None:
        if not self._stop.is_set():
            self._out.put(Failed(self._resource, describe_error(exc)))

    def _list(self, after_expiry: bool) -> Listed:
        """Every object, page by page; a page token that expired restarts the list."""
        for _ in range(RETRIES):
            items: list[object] = []
            token: str | None = None
            try:
                while True:
                    response = self._method(
                        limit=self._options.page_size,
                        _continue=token,
                        _preload_content=False,
                        _request_timeout=(10, 120),
                    )
                    try:
                        body = json.loads(response.data)
                    finally:
                        response.release_conn()
                    items.extend(body.get("items") or [])
                    meta = body.get("metadata") or {}
                    token = meta.get("continue") or None
                    if token is None:
                        version = meta.get("resourceVersion") or None
                        return Listed(self._resource, items, version, _now(), after_expiry)
            except ApiException as exc:
                if exc.status != GONE or token is None:
                    raise
        raise ApiException(status=GONE, reason="list continue token expired repeatedly")

    def _watch_once(self, window: int) -> bool:
        """One watch request from the last resourceVersion; True when it read an event."""
        watch = Watch(return_type="object")  # keep the raw objects; no model validation
        began = time.monotonic()
        received = False
        for event in watch.stream(
            self._open,
            resource_version=self._resource_version,
            timeout_seconds=window,
            allow_watch_bookmarks=True,
            _request_timeout=(10, window + 30),
        ):
            if self._stop.is_set():
                break
            obj = event.get("raw_object")
            version = _resource_version(obj)
            self._out.put(Watched(self._resource, str(event.get("type")), obj, version, _now()))
            if version is not None:
                self._resource_version = version
            received = True
        if not received and time.monotonic() - began < 1.0:
            self._stop.wait(1.0)  # the server closed at once: do not spin
        return received


def _shut(response: HTTPResponse) -> None:
    """Shut the socket under a streaming response, which unblocks its reader."""
    sock = getattr(getattr(response, "connection", None), "sock", None)
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


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
            extracted_at=_now(),
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
        save_state(
            state_path(self.home, self.options.cluster),
            self.options.cluster,
            self.connection.server,
            self.versions,
        )
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
    path = state_path(home, options.cluster)
    run = _Run(home, connection, options, load_state(path), log)
    to_list = {r.name for r in RESOURCES if r.name not in run.versions}
    resumed = ", ".join(f"{k} {v}" for k, v in sorted(run.versions.items())) or "nothing saved"
    log(f"kubernetes {options.cluster}: {connection.server}: resuming from {resumed}")
    deadline = None if live.timeout_seconds is None else time.monotonic() + live.timeout_seconds
    out: Queue[Item] = Queue()
    stop = threading.Event()
    api = k8s_client.CoreV1Api(connection.api_client)
    watchers = [
        _Watcher(api, r, run.versions.get(r.name), out, stop, live, deadline) for r in RESOURCES
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
