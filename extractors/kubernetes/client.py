"""The official `kubernetes` client, configured from a kubeconfig or an explicit server URL,
and the `Watcher` thread per resource that live mode (`extractors.kubernetes.live`) runs.
File mode (`extractors.kubernetes.files`) never imports it (~0.8 s of every start-up).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from queue import Queue
from urllib.parse import urlparse

from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException
from kubernetes.watch import Watch
from urllib3.exceptions import HTTPError
from urllib3.response import HTTPResponse

from extractors.kubernetes.files import KubernetesLiveError

GONE = 410
RETRIES = 3  # consecutive failures of one resource (connection, stream) before giving up


@dataclass(frozen=True)
class Connection:
    """A configured API client, the server it talks to and the cluster name it implies."""

    api_client: k8s_client.ApiClient
    server: str
    default_cluster: str


def connect(
    *, server: str | None = None, kubeconfig: Path | None = None, context: str | None = None
) -> Connection:
    """An API client for `server` (plain `Configuration(host=...)`), else for the kubeconfig
    (`kubeconfig`, else $KUBECONFIG or ~/.kube/config) and its `context`."""
    if server is not None:
        configuration = k8s_client.Configuration(host=server.rstrip("/"))
        parsed = urlparse(configuration.host)
        return Connection(
            k8s_client.ApiClient(configuration), configuration.host, parsed.netloc or server
        )
    config_file = str(kubeconfig) if kubeconfig is not None else None
    try:
        contexts, active = k8s_config.list_kube_config_contexts(config_file=config_file)
        chosen = next((c for c in contexts if c["name"] == context), None) if context else active
        if chosen is None:
            raise ConfigException(f"no context {context!r}")
        api_client = k8s_config.new_client_from_config(
            config_file=config_file, context=chosen["name"]
        )
    except (ConfigException, OSError) as exc:
        where = config_file or "the default kubeconfig"
        raise KubernetesLiveError(f"{where}: {exc}") from None
    cluster = chosen.get("context", {}).get("cluster") or chosen["name"]
    return Connection(api_client, api_client.configuration.host, cluster)


def state_name(cluster: str) -> str:
    """A file name for a cluster's watch state (anything but letters, digits, . _ - is `_`)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", cluster) or "_"


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


def now() -> dt.datetime:
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


class Watcher:
    """Lists and watches one resource in its own thread, putting items on `out`."""

    def __init__(
        self,
        api: k8s_client.CoreV1Api,
        resource: Resource,
        resource_version: str | None,
        out: Queue[Item],
        stop: threading.Event,
        *,
        deadline: float | None,
        watch_seconds: int,
        page_size: int,
    ) -> None:
        self.thread = threading.Thread(
            target=self._run, daemon=True, name=f"kubernetes-{resource.name}"
        )
        self._method = getattr(api, resource.list_method)
        self._resource = resource
        self._resource_version = resource_version
        self._out = out
        self._stop = stop
        self._deadline = deadline
        self._watch_seconds = watch_seconds
        self._page_size = page_size
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
            return self._watch_seconds
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            return None
        return max(1, min(self._watch_seconds, int(remaining + 0.999)))

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
                        limit=self._page_size,
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
                        return Listed(self._resource, items, version, now(), after_expiry)
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
            self._out.put(Watched(self._resource, str(event.get("type")), obj, version, now()))
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
