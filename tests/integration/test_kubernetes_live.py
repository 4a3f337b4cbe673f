"""`gpuledger ingest kubernetes --live` through the real `kubernetes` client, against recorded
API responses served on loopback.

There is no API server here, so a stdlib HTTP server on 127.0.0.1 replays recorded-shape
responses (tests/fixtures/kubernetes/live/): the list endpoints `/api/v1/{pods,namespaces,
resourcequotas,nodes}` with their resourceVersion, and `?watch=true` streams as chunked
JSON lines. The script, per pod (2026-10-20, UTC):

  list 1 (rv 1000): A train-a-0 (2 GPUs, running), B infer-b (MIG 3g.40gb), C dev-c
      (time-sliced, 4 replicas), D queued-d-0 (Pending, 4 GPUs), E web-e (no GPU)
  watch from 1000: A finished 10:00; D scheduled, runs from 10:05; F infer-f-0 (MIG
      1g.10gb) added, runs from 10:06; then ERROR 410 Expired
  (unseen gap: A deleted, B force-deleted, G eval-g ran 10:10-10:15)
  list 2 (rv 1020): C D E F G
  watch from 1020: D OOMKilled at 10:30, D deleted, BOOKMARK 1023
  -- run 1 stops; run 2 resumes from the saved 1023 --
  watch from 1023: F finished 11:00, H train-h-0 added (running from 11:05), C deleted
      (deletionTimestamp 11:10, still running)
  -- run 3 resumes from an expired resourceVersion (900): HTTP 410, list 3 (rv 1026) --

After `gpuledger build`, every pod's allocation interval is in staging exactly once. A build
before run 3 and one after it: the second keeps the pods' requests per key, recomputing those
list 3 names (F G H; E holds no GPU) and C and D, which no batch of run 3 names but list 3
ends (last seen before it, not in it: gone by it), and holds what a build of every batch at
once holds.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pyarrow.parquet as pq

from tests.conftest import FIXTURES, run_cli, sql

LIVE = FIXTURES / "kubernetes" / "live"
RESOURCES = ("pods", "namespaces", "resourcequotas", "nodes")
DAY = "2026-10-20"


def at(clock: str) -> dt.datetime:
    return dt.datetime.fromisoformat(f"{DAY} {clock}")


@dataclass
class Recording:
    """Which recorded response answers which request."""

    lists: dict[str, list[str]]  # resource -> list responses, served in order (last repeats)
    watches: dict[tuple[str, str], tuple[str, int]]  # (resource, rv) -> (stream, from phase)
    expired_below: int  # a watch from an older resourceVersion is answered 410 Gone
    phase: int = 1
    requests: list[tuple[str, str, str | None, int]] = field(default_factory=list)
    user_agents: set[str] = field(default_factory=set)
    authorizations: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)
    closing: threading.Event = field(default_factory=threading.Event)

    def calls(self, resource: str, kind: str) -> list[tuple[str, str, str | None, int]]:
        with self.lock:
            return [r for r in self.requests if r[0] == resource and r[1] == kind]


def recording() -> Recording:
    return Recording(
        lists={
            "pods": ["pods-list-1.json", "pods-list-2.json", "pods-list-3.json"],
            "namespaces": ["namespaces-list-1.json"],
            "resourcequotas": ["resourcequotas-list-1.json"],
            "nodes": ["nodes-list-1.json"],
        },
        watches={
            ("pods", "1000"): ("pods-watch-from-1000.jsonl", 1),
            ("pods", "1020"): ("pods-watch-from-1020.jsonl", 1),
            ("pods", "1023"): ("pods-watch-from-1023.jsonl", 2),
            ("namespaces", "1000"): ("namespaces-watch-from-1000.jsonl", 1),
        },
        expired_below=1000,
    )


class RecordedApi(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_GET(self) -> None:
        rec = self.server.recording
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        resource = url.path.removeprefix("/api/v1/")
        rec.user_agents.add(self.headers.get("User-Agent", ""))
        rec.authorizations.add(self.headers.get("Authorization", ""))
        if resource not in RESOURCES:
            self._json(404, _status(404, "NotFound", f"{url.path} not found"))
            return
        watching = query.get("watch", "").lower() in ("true", "1")
        version = query.get("resourceVersion")
        with rec.lock:
            rec.requests.append((resource, "watch" if watching else "list", version, rec.phase))
            served = sum(1 for r in rec.requests if r[0] == resource and r[1] == "list")
        if not watching:
            responses = rec.lists[resource]
            body = (LIVE / responses[min(served, len(responses)) - 1]).read_bytes()
            self._bytes(200, body)
            return
        if version is not None and int(version) < rec.expired_below:
            self._json(410, _status(410, "Expired", f"too old resource version: {version}"))
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        script = rec.watches.get((resource, version or ""))
        try:
            if script is not None and rec.phase >= script[1]:
                for line in (LIVE / script[0]).read_text().splitlines():
                    self._chunk((line + "\n").encode())
            else:  # nothing new: hold the watch open until its timeout, like the API server
                rec.closing.wait(float(query.get("timeoutSeconds", "5")))
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError:
            return  # the client went away (it stopped its watch)

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _bytes(self, code: int, body: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _json(self, code: int, document: dict[str, object]) -> None:
        self._bytes(code, json.dumps(document).encode())


def _status(code: int, reason: str, message: str) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "Status",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    recording: Recording


@contextmanager
def api_server(rec: Recording) -> Iterator[str]:
    server = _Server(("127.0.0.1", 0), RecordedApi)
    server.recording = rec
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        rec.closing.set()
        server.shutdown()
        server.server_close()


def live(home: Path, url: str, *args: str) -> tuple[int, str, float]:
    began = time.monotonic()
    result = run_cli(
        home,
        None,
        "ingest",
        "kubernetes",
        "--live",
        "--server",
        url,
        "--cluster",
        "lab",
        "--batch-seconds",
        "0.2",
        *args,
    )
    assert result.exit_code == 0, result.stderr
    return result.exit_code, result.stderr, time.monotonic() - began


def state(home: Path) -> dict[str, str]:
    return json.loads((home / "state" / "kubernetes" / "lab.json").read_text())["resource_versions"]


def raw_rows(home: Path, table: str) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for path in sorted((home / "raw" / table).glob("*.parquet")):
        rows.extend(pq.read_table(path).to_pylist())
    return rows


def _keyed_build_equals_whole(home: Path, whole: Path, recomputed: int) -> None:
    """`gpuledger build` of `home` (its pods kept per request: `recomputed` of them) gives
    the rows a new warehouse over the same batches gives."""
    build = run_cli(home, None, "build")
    assert build.exit_code == 0, build.stderr
    log = (home / "dbt" / "target" / "dbt.log").read_text()
    kept = re.findall(
        r"gpuledger kept by key: stg_kubernetes__pod_allocations_kept recomputed (\d+) key", log
    )
    assert kept[-1:] == [str(recomputed)]
    assert "gpuledger kept by key: stg_kubernetes__pending_requests recomputed" in log
    shutil.copytree(home, whole)
    for path in whole.glob("warehouse.duckdb*"):
        path.unlink()
    built = run_cli(whole, None, "build")
    assert built.exit_code == 0, built.stderr
    for table in ("stg_kubernetes__pod_allocations", "stg_kubernetes__pending_requests"):
        every = f"select * from staging.{table} order by all"
        assert sql(home, every) == sql(whole, every), table


def test_watch_survives_410_and_restarts_without_duplicates_or_lost_intervals(
    home: Path, tmp_path: Path
) -> None:
    rec = recording()
    with api_server(rec) as url:
        # Run 1: list everything, watch, 410 on the pod watch, re-list, watch on.
        run1_began = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        _, log1, seconds1 = live(home, url, "--max-events", "8", "--timeout-seconds", "60")
        run1_ended = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        assert seconds1 < 30
        assert "pods watch expired (410 Gone); re-listed 5 at resourceVersion 1020" in log1
        assert state(home) == {
            "pods": "1023",
            "namespaces": "1005",
            "resourcequotas": "1000",
            "nodes": "1000",
        }
        assert [r[2] for r in rec.calls("pods", "list")] == [None, None]
        assert [r[2] for r in rec.calls("pods", "watch")][:2] == ["1000", "1020"]
        assert any(ua.startswith("OpenAPI-Generator/36.0.3/python") for ua in rec.user_agents)
        after_run1 = (home / "state" / "kubernetes" / "lab.json").read_bytes()

        # Run 2: a restart resumes every watch from the saved resourceVersion, lists nothing.
        rec.phase = 2
        lists_before = len([r for r in rec.requests if r[1] == "list"])
        _, log2, _ = live(home, url, "--max-events", "3", "--timeout-seconds", "60")
        assert "resuming from namespaces 1005, nodes 1000, pods 1023, resourcequotas 1000" in log2
        assert len([r for r in rec.requests if r[1] == "list"]) == lists_before
        assert ("pods", "watch", "1023", 2) in rec.requests
        assert state(home)["pods"] == "1026"

        # Run 2 again as after a crash between landing and saving the state: the same
        # events are read and landed again; staging must still hold each interval once.
        (home / "state" / "kubernetes" / "lab.json").write_bytes(after_run1)
        live(home, url, "--max-events", "3", "--timeout-seconds", "60")
        assert state(home)["pods"] == "1026"

        first = run_cli(home, None, "build")
        assert first.exit_code == 0, first.stderr

        # Run 3: the saved resourceVersion expired while the extractor was down (HTTP 410).
        saved = json.loads((home / "state" / "kubernetes" / "lab.json").read_text())
        saved["resource_versions"]["pods"] = "900"
        (home / "state" / "kubernetes" / "lab.json").write_text(json.dumps(saved))
        rec.phase = 3
        _, log3, _ = live(home, url, "--timeout-seconds", "3")
        assert ("pods", "watch", "900", 3) in rec.requests
        assert "re-listed 4 at resourceVersion 1026" in log3
        assert len(rec.calls("pods", "list")) == 3
        assert state(home)["pods"] == "1026"
    _keyed_build_equals_whole(home, tmp_path / "whole", recomputed=5)  # F G H, and C D

    # The same pods saved by kubectl and ingested as a file add observations, not rows.
    listed = tmp_path / "pods.json"
    shutil.copy(LIVE / "pods-list-2.json", listed)
    saved_at = dt.datetime.now(dt.UTC).isoformat()  # a List carries no time: kubectl ran now
    result = run_cli(
        home, None, "ingest", "kubernetes", "--file", str(listed), "--cluster", "lab",
        "--extracted-at", saved_at,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "read 5, landed 5, quarantined 0" in result.stdout

    build = run_cli(home, None, "build")
    assert build.exit_code == 0, build.stderr

    rows = sql(
        home,
        """
        select pod_name, container_name, resource_name, device_count, sharing_mode,
            mig_profile, timeslice_replicas, started_at, finished_at, finished_at_source, is_open
        from staging.stg_kubernetes__pod_allocations
        where cluster_id = 'lab'
        order by pod_name
        """,
    )
    by_pod = {r[0]: r[1:] for r in rows}
    assert len(rows) == len(by_pod) == 7  # A B C D F G H, once each; E has no GPU
    b_end = by_pod["infer-b-6d5f7c9b8-x2k4p"][7]
    assert run1_began <= b_end <= run1_ended  # gone by the re-list after the 410
    assert by_pod == {
        "train-a-0": ("trainer", "nvidia.com/gpu", 2, "whole", None, None,
                      at("09:00"), at("10:00"), "terminated", False),
        "infer-b-6d5f7c9b8-x2k4p": ("triton", "nvidia.com/mig-3g.40gb", 1, "mig", "3g.40gb", None,
                                    at("08:00"), b_end, "absent_from_relist", False),
        "dev-c-5f6b7d9c4-qq8zt": ("shell", "nvidia.com/gpu.shared", 1, "timeslice", None, 4,
                                  at("07:30"), at("11:10"), "deleted", False),
        "queued-d-0": ("trainer", "nvidia.com/gpu", 4, "whole", None, None,
                       at("10:05"), at("10:30"), "terminated", False),
        "infer-f-0": ("notebook", "nvidia.com/mig-1g.10gb", 1, "mig", "1g.10gb", None,
                      at("10:06"), at("11:00"), "terminated", False),
        "eval-g-28812340-9xk2j": ("eval", "nvidia.com/gpu", 1, "whole", None, None,
                                  at("10:10"), at("10:15"), "terminated", False),
        "train-h-0": ("trainer", "nvidia.com/gpu", 1, "whole", None, None,
                      at("11:05"), None, None, True),
    }  # fmt: skip

    # The raw landing holds every observation (re-lists and the replay included); staging
    # collapses them to one row per pod, container and resource.
    raw = raw_rows(home, "kubernetes_pod_allocations")
    assert len(raw) > len(rows)
    assert {r["pod_name"] for r in raw} == set(by_pod)
    snapshots = raw_rows(home, "kubernetes_list_snapshots")
    assert sorted(
        (s["resource"], s["resource_version"]) for s in snapshots if s["resource"] == "pods"
    ) == [("pods", "1000"), ("pods", "1020"), ("pods", "1026")]

    # Pending requests wait for D (unschedulable) and F (added, not yet bound).
    pending = sql(
        home,
        "select pod_name, device_count, is_bound_to_node, unschedulable_reason "
        "from staging.stg_kubernetes__pending_requests order by pod_name",
    )
    assert pending == [("infer-f-0", 1, False, None), ("queued-d-0", 4, False, "Unschedulable")]

    # The tenant label changed on team-a while watched: two label states.
    labels = sql(
        home,
        "select namespace_name, tenant_label_value, superseded_at is null "
        "from staging.stg_kubernetes__namespace_labels order by namespace_name, observed_at",
    )
    assert labels == [
        ("kube-system", None, True),
        ("team-a", "acme", False),
        ("team-a", "acme-research", True),
        ("team-b", "globex", True),
        ("team-c", "initech", True),
    ]
    quotas = sql(
        home,
        "select namespace_name, gpu_resource_name, hard_quantity, used_quantity "
        "from staging.stg_kubernetes__resource_quotas",
    )
    assert quotas == [("team-a", "nvidia.com/gpu", 8.0, 6.0)]


def test_kubeconfig_context_names_the_cluster_and_max_events_zero_lists_once(
    home: Path, tmp_path: Path
) -> None:
    rec = recording()
    with api_server(rec) as url:
        kubeconfig = tmp_path / "kubeconfig"
        kubeconfig.write_text(
            "apiVersion: v1\nkind: Config\n"
            f"clusters:\n- name: lab-east\n  cluster:\n    server: {url}\n"
            "users:\n- name: reader\n  user:\n    token: test-token-not-a-secret\n"
            "contexts:\n- name: reader@lab-east\n  context:\n    cluster: lab-east\n"
            "    user: reader\ncurrent-context: reader@lab-east\n"
        )
        result = run_cli(
            home, None, "ingest", "kubernetes", "--live", "--kubeconfig", str(kubeconfig),
            "--max-events", "0", "--timeout-seconds", "30",
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr
        assert "Bearer test-token-not-a-secret" in rec.authorizations
        assert sorted(r[0] for r in rec.requests if r[1] == "list") == sorted(RESOURCES)
    saved = json.loads((home / "state" / "kubernetes" / "lab-east.json").read_text())
    assert saved["cluster"] == "lab-east"
    assert saved["resource_versions"] == {r: "1000" for r in RESOURCES}
    assert "landed 0 events and 13 listed objects" in result.stderr
    assert {r["cluster"] for r in raw_rows(home, "kubernetes_pod_allocations")} == {"lab-east"}


def test_unreachable_server_is_an_error_naming_it(home: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    result = run_cli(
        home, None, "ingest", "kubernetes", "--live", "--server", url, "--timeout-seconds", "20"
    )
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1].startswith(f"gpuledger: {url}: ")
    assert "Connection refused" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (home / "state" / "kubernetes").exists()
