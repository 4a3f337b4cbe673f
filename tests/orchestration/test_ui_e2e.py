"""End to end through the real UI server: `dagster dev` on loopback over a home holding the
demo month (landed, not closed), the close of 2026-10 launched through the GraphQL API, then
a headless Chromium screenshot of the asset graph.

Chromium comes from scripts/chromium/install.sh (Debian chromium + chromium-driver, as root).
The screenshot and a timings file go to $GPULEDGER_E2E_ARTIFACTS (default: the test's tmp).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gpuledger.demo import generate
from tests.conftest import REPO, run_cli, sql

LOCATION = "orchestration.definitions"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1600,1000",
    "--virtual-time-budget=30000",
)
LAUNCH = """
mutation Launch($params: ExecutionParams!) {
  launchRun(executionParams: $params) {
    __typename
    ... on LaunchRunSuccess { run { runId } }
    ... on PythonError { message }
    ... on RunConfigValidationInvalid { errors { message } }
  }
}"""
RUN_STATUS = "query Status($id: ID!) { runOrError(runId: $id) { ... on Run { status } } }"
LOCATIONS = "{ repositoriesOrError { ... on RepositoryConnection { nodes { name } } } }"


@dataclass(frozen=True)
class Server:
    url: str
    home: Path
    started_s: float


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _graphql(url: str, query: str, variables: dict | None = None) -> dict:
    body = json.dumps({"query": query, "variables": variables or {}}).encode()
    request = urllib.request.Request(
        f"{url}/graphql", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def _wait(what: str, ready: object, timeout: float, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if ready():
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)
    pytest.fail(f"{what} not ready after {timeout}s; dagster dev log:\n{log.read_text()[-4000:]}")


def _stop(process: subprocess.Popen) -> None:
    """SIGINT to dagster dev (orchestration.ui resets it to the default, stack-probe P10; it
    stops the webserver, daemon and code servers), then make sure nothing of its process group
    is left."""
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.5)
    os.killpg(process.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def chromium() -> str:
    subprocess.run(
        ["bash", str(REPO / "scripts" / "chromium" / "install.sh")], check=True, timeout=900
    )
    path = shutil.which("chromium")
    assert path, "scripts/chromium/install.sh did not put chromium on PATH"
    return path


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = Path(os.environ.get("GPULEDGER_E2E_ARTIFACTS") or tmp_path_factory.mktemp("ui"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("ui-server")
    home = tmp / "home"
    files = generate(tmp / "demo", period="2026-10", seed=7)
    for source, paths in (("inventory", [files.inventory]), ("slurm", files.sacct_files)):
        landed = run_cli(home, None, "ingest", source, "--file", *map(str, paths))
        assert landed.exit_code == 0, landed.stderr
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp / "dagster-dev.log"
    # what `make ui` runs; DAGSTER_HOME defaults to <home>/dagster
    env = {**os.environ, "GPULEDGER_HOME": str(home)}
    for name in ("GPULEDGER_POLICY", "DAGSTER_HOME"):
        env.pop(name, None)
    started = time.monotonic()
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "orchestration.ui", "--port", str(port)],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        _wait(
            "webserver",
            lambda: urllib.request.urlopen(f"{url}/server_info", timeout=5).status == 200,
            300,
            log,
        )
        _wait(
            "code location",
            lambda: _graphql(url, LOCATIONS)["data"]["repositoriesOrError"].get("nodes"),
            300,
            log,
        )
        yield Server(url, home, time.monotonic() - started)
    finally:
        _stop(process)


def _png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", header[16:24])


def test_close_launched_from_the_ui_api_publishes_and_the_graph_renders(
    server: Server, chromium: str, artifacts: Path
) -> None:
    params = {
        "selector": {
            "repositoryLocationName": LOCATION,
            "repositoryName": "__repository__",
            "jobName": "monthly_close",
        },
        "runConfigData": {"ops": {"published_period": {"config": {"approver": "ui-e2e"}}}},
        "executionMetadata": {"tags": [{"key": "dagster/partition", "value": "2026-10-01"}]},
    }
    launched_at = time.monotonic()
    launched = _graphql(server.url, LAUNCH, {"params": params})["data"]["launchRun"]
    assert launched["__typename"] == "LaunchRunSuccess", launched
    run_id = launched["run"]["runId"]
    status = None
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        status = _graphql(server.url, RUN_STATUS, {"id": run_id})["data"]["runOrError"]["status"]
        if status in ("SUCCESS", "FAILURE", "CANCELED"):
            break
        time.sleep(1)
    run_s = time.monotonic() - launched_at
    assert status == "SUCCESS", f"run {run_id} ended {status}"
    closes = sql(server.home, "select period, approver, close_version from ledger.closes")
    assert closes == [("2026-10", "ui-e2e", 1)]
    assert sql(
        server.home, "select distinct status from marts.fact_chargeback where period = '2026-10'"
    ) == [("closed",)]

    # the global asset graph (marts and ledger groups expanded), and published_period with
    # the marts it reads, at a zoom where statuses, check counts and partitions show
    groups = ",".join(
        f"{prefix}:{group}"
        for prefix in ("global@global", f"__repository__@{LOCATION}")
        for group in ("marts", "ledger")
    )
    pages = {
        "asset-graph.png": f"asset-groups?expanded={groups}",
        "published-period-lineage.png": (
            "assets/published_period?view=lineage&lineageScope=upstream&lineageDepth=1"
        ),
    }
    for name, page in pages.items():
        shot = artifacts / name
        shot.unlink(missing_ok=True)
        with tempfile.TemporaryDirectory() as profile:
            taken = subprocess.run(
                [
                    chromium,
                    *CHROMIUM_FLAGS,
                    f"--user-data-dir={profile}",
                    f"--screenshot={shot}",
                    f"{server.url}/{page}",
                ],
                capture_output=True,
                text=True,
                timeout=180,
                check=False,
            )
        assert taken.returncode == 0, taken.stderr[-2000:]
        assert _png_size(shot) == (1600, 1000)
        assert shot.stat().st_size > 50_000, f"{page} rendered next to nothing"
    (artifacts / "timings.json").write_text(
        json.dumps({"webserver_ready_s": round(server.started_s, 1), "run_s": round(run_s, 1)})
        + "\n"
    )
