"""End to end through the real UI server, over a copy of the demo month's home: `gpuledger
demo` closed 2026-10 (tests/conftest.py: demo_home), and the CLI reopens it, as the README's
rehearsal does after `make demo`. Then `dagster dev` on loopback (what `make ui` runs) shows
both CLI runs in its run history: the demo's close as a materialization of published_period
holding its close id, version, totals and input manifest hash, its reconciliation checks with
their figures, and the reopen. The close of 2026-10 is launched again through the GraphQL API
(version 2), then headless Chromium screenshots the Runs page (which lists the demo's close)
and the asset graph.

Chromium comes from scripts/chromium/install.sh (Debian chromium + chromium-driver, as root).
The screenshots and a timings file go to $GPULEDGER_E2E_ARTIFACTS (default: the test's tmp).
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

from tests.conftest import HEADLESS_CHROMIUM, REPO, run_cli, sql

LOCATION = "orchestration.definitions"
DEMO_CLOSE_ID = "close-2026-10-v1-14c4f85eb6"
CHROMIUM_FLAGS = (*HEADLESS_CHROMIUM, "--window-size=1600,1000", "--virtual-time-budget=30000")
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
ENTRIES = """metadataEntries { label
    ... on TextMetadataEntry { text } ... on IntMetadataEntry { intValue }
    ... on FloatMetadataEntry { floatValue } }"""
CLI_RUNS = """{ runsOrError(filter: {tags: [{key: "gpuledger/launched_by", value: "cli"}]}) {
  ... on Runs { results { runId jobName status tags { key value } } } } }"""
PUBLISHED = f"""{{ assetOrError(assetKey: {{path: ["published_period"]}}) {{ ... on Asset {{
  assetMaterializations(partitions: ["2026-10-01"]) {{ runId partition {ENTRIES} }}
  assetObservations(partitions: ["2026-10-01"]) {{ runId partition {ENTRIES} }} }} }} }}"""
CHECK = f"""query Check($name: String!) {{ assetCheckExecutions(
  assetKey: {{path: ["marts", "fact_reconciliation"]}}, checkName: $name, limit: 5) {{
  runId status evaluation {{ success {ENTRIES} }} }} }}"""


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
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = Path(os.environ.get("GPULEDGER_E2E_ARTIFACTS") or tmp_path_factory.mktemp("ui"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def server(
    demo_home: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("ui-server")
    home = tmp / "home"  # a copy: the UI closes it again
    shutil.copytree(demo_home[0], home, symlinks=True)
    reason = "rehearse in the UI"
    reopened = run_cli(home, None, "reopen", "--period", "2026-10", "--reason", reason)
    assert reopened.exit_code == 0, reopened.stderr
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


def _entries(node: dict) -> dict[str, object]:
    return {
        e["label"]: e.get("text", e.get("intValue", e.get("floatValue")))
        for e in node["metadataEntries"]
    }


def test_the_demos_close_and_the_reopen_are_in_the_ui_run_history(server: Server) -> None:
    close_id = DEMO_CLOSE_ID
    runs = _graphql(server.url, CLI_RUNS)["data"]["runsOrError"]["results"]
    by_job = {run["jobName"]: run for run in runs}
    assert sorted(by_job) == ["monthly_close", "reopen_period"], runs
    close_run, reopen_run = by_job["monthly_close"], by_job["reopen_period"]
    for run in (close_run, reopen_run):
        assert run["status"] == "SUCCESS"
        assert {"key": "dagster/partition", "value": "2026-10-01"} in run["tags"]

    asset = _graphql(server.url, PUBLISHED)["data"]["assetOrError"]
    (materialization,) = asset["assetMaterializations"]
    assert materialization["runId"] == close_run["runId"]
    published = _entries(materialization)
    ledger = sql(
        server.home,
        "select close_version, approver, line_count, total_amount, lines_sha256, "
        "input_manifest_hash from ledger.closes where close_id = ?",
        [close_id],
    )[0]
    assert published["close_id"] == close_id
    assert ledger[1] == "demo"
    assert (
        published["close_version"],
        published["approver"],
        published["line_count"],
        published["total_amount"],
        published["lines_sha256"],
        published["input_manifest_hash"],
    ) == (ledger[0], ledger[1], ledger[2], float(ledger[3]), ledger[4], ledger[5])
    assert published["closed_at"].endswith("Z")
    (observation,) = asset["assetObservations"]
    assert observation["runId"] == reopen_run["runId"]
    assert _entries(observation) | {"reopened_at": None} == {
        "reopen_id": "reopen-2026-10-v1",
        "close_id": close_id,
        "close_version": 1,
        "reopened_at": None,
        "reason": "rehearse in the UI",
        "requested_by": "unknown",
        "next_close_version": 2,
    }

    # a reconciliation check of the close, with its figures
    (check,) = [
        execution
        for execution in _graphql(server.url, CHECK, {"name": "capacity_identity"})["data"][
            "assetCheckExecutions"
        ]
        if execution["runId"] == close_run["runId"]
    ]
    assert check["status"] == "SUCCEEDED" and check["evaluation"]["success"]
    figures = _entries(check["evaluation"])
    (row,) = sql(
        server.home,
        "select status, observed_value, limit_value, unit, detail from marts.fact_reconciliation "
        "where period = '2026-10' and check_name = 'capacity_identity'",
    )
    assert figures["period"] == "2026-10" and figures["status"] == "pass"
    assert (figures["status"], figures["observed"], figures["limit"]) == (
        row[0],
        float(row[1]),
        float(row[2]),
    )
    assert (figures["unit"], figures["detail"]) == (row[3], row[4])


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
    closes = sql(
        server.home, "select period, approver, close_version from ledger.closes order by 3"
    )
    assert closes == [("2026-10", "demo", 1), ("2026-10", "ui-e2e", 2)]
    assert sql(
        server.home, "select distinct status from marts.fact_chargeback where period = '2026-10'"
    ) == [("closed",)]

    # the Runs page (the UI's close, the CLI's reopen, the demo's close), the global asset graph
    # (marts and ledger groups expanded), and published_period with the marts it reads, at a
    # zoom where statuses, check counts and partitions show
    groups = ",".join(
        f"{prefix}:{group}"
        for prefix in ("global@global", f"__repository__@{LOCATION}")
        for group in ("marts", "ledger")
    )
    pages = {
        "runs.png": "runs",
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
    # the Runs page, rendered, lists the demo's close run (by the first 8 characters of its id)
    demo_run = next(
        run["runId"]
        for run in _graphql(server.url, CLI_RUNS)["data"]["runsOrError"]["results"]
        if run["jobName"] == "monthly_close"
    )
    runs_page = f"{server.url}/runs"
    with tempfile.TemporaryDirectory() as profile:
        dom = subprocess.run(
            [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom", runs_page],
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert demo_run[:8] in dom.stdout and run_id[:8] in dom.stdout
    (artifacts / "timings.json").write_text(
        json.dumps({"webserver_ready_s": round(server.started_s, 1), "run_s": round(run_s, 1)})
        + "\n"
    )
