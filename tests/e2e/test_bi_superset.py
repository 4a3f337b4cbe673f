"""A BI tool people use reads the served copy, for real: Apache Superset from PyPI, in its own
environment (.venv-superset, scripts/superset/), on a loopback port over a copy of the demo
month's home. Through its REST API the test registers `<home>/serving/marts.duckdb` as a
database (duckdb-engine, read-only) and fact_showback as a dataset, then asks for a chart's
data: allocated GPU-hours and total charge per tenant in 2026-10. The figures equal
fact_showback's, and go on equalling them, query after query, while `gpuledger build` runs in
another process and replaces the served copy underneath Superset.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest

from gpuledger.core.home import served_path
from gpuledger.core.serving import query_served
from tests.conftest import REPO

SUPERSET_VENV = REPO / ".venv-superset"
SUPERSET_CONFIG = REPO / "scripts" / "superset" / "superset_config.py"
GPULEDGER = Path(sys.executable).parent / "gpuledger"
PERIOD = "2026-10"
FIGURES = ("allocated_gpu_hours", "total_charge")


@dataclass(frozen=True)
class Superset:
    url: str
    token: str
    dataset_id: int
    home: Path


def _superset_venv() -> Path:
    """Superset's environment, built by the Makefile once (a stamp file); a failed build fails
    the test with its output."""
    built = subprocess.run(
        ["make", "-s", str(SUPERSET_VENV.relative_to(REPO) / ".installed")],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=1800,
    )
    if built.returncode != 0:
        pytest.fail(f"cannot build .venv-superset:\n{built.stdout}\n{built.stderr}")
    return SUPERSET_VENV


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _api(url: str, path: str, body: dict | None = None, token: str | None = None) -> dict:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{url}{path}", data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        pytest.fail(f"{path}: HTTP {error.code}: {error.read().decode()[:2000]}")


def _wait_healthy(url: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"superset exited {process.returncode}:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=5) as response:
                if response.read() == b"OK":
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)
    pytest.fail(f"superset not healthy after 300 s:\n{log.read_text()[-4000:]}")


def _stop(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)


@pytest.fixture(scope="module")
def superset(
    demo_home: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Superset]:
    venv = _superset_venv()
    tmp = tmp_path_factory.mktemp("superset")
    home = tmp / "home"  # a copy: the test builds it while Superset reads it
    shutil.copytree(demo_home[0], home, symlinks=True)
    metadata = tmp / "superset.db"
    shutil.copyfile(venv / "metadata-template.db", metadata)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "SUPERSET_CONFIG_PATH": str(SUPERSET_CONFIG),
        "GPULEDGER_SUPERSET_DB": str(metadata),
        "SUPERSET_HOME": str(tmp / "superset-home"),
    }
    log = tmp / "superset.log"
    address = ("-h", "127.0.0.1", "-p", str(port))
    with log.open("w") as out:
        process = subprocess.Popen(
            [str(venv / "bin" / "superset"), "run", "--with-threads", *address],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        _wait_healthy(url, process, log)
        login = {"username": "admin", "password": "admin", "provider": "db", "refresh": False}
        token = _api(url, "/api/v1/security/login", login)["access_token"]
        database = {
            "database_name": "gpuledger served marts",
            "sqlalchemy_uri": f"duckdb:///{served_path(home)}",
            "expose_in_sqllab": True,
            "extra": json.dumps({"engine_params": {"connect_args": {"read_only": True}}}),
        }
        database_id = _api(url, "/api/v1/database/", database, token)["id"]
        dataset = {"database": database_id, "schema": "main", "table_name": "fact_showback"}
        dataset_id = _api(url, "/api/v1/dataset/", dataset, token)["id"]
        yield Superset(url, token, dataset_id, home)
    finally:
        _stop(process)


def _chart_figures(superset: Superset) -> dict[str, tuple[Decimal, ...]]:
    """The chart's data: per tenant, each figure summed over PERIOD."""
    query = {
        "columns": ["tenant_id"],
        "metrics": [
            {"expressionType": "SQL", "sqlExpression": f"SUM({name})", "label": name}
            for name in FIGURES
        ],
        "filters": [{"col": "period", "op": "==", "val": PERIOD}],
        "orderby": [["tenant_id", True]],
        "row_limit": 10000,
    }
    body = {
        "datasource": {"id": superset.dataset_id, "type": "table"},
        "queries": [query],
        "result_format": "json",
        "result_type": "full",
        "force": True,
    }
    (result,) = _api(superset.url, "/api/v1/chart/data", body, superset.token)["result"]
    assert result["status"] == "success", result
    return {
        row["tenant_id"]: tuple(Decimal(str(row[name])) for name in FIGURES)
        for row in result["data"]
    }


def _showback(home: Path) -> dict[str, tuple[Decimal, ...]]:
    rows = query_served(
        home,
        f"select tenant_id, {', '.join(FIGURES)} from fact_showback where period = ?",
        [PERIOD],
    )
    return {row["tenant_id"]: tuple(Decimal(str(row[name])) for name in FIGURES) for row in rows}


def test_a_superset_chart_of_the_served_copy_equals_fact_showback(superset: Superset) -> None:
    showback = _showback(superset.home)
    assert len(showback) >= 3 and sum(figures[0] for figures in showback.values()) > 0
    assert _chart_figures(superset) == showback


def test_superset_keeps_reading_while_a_build_replaces_the_served_copy(
    superset: Superset,
) -> None:
    served = served_path(superset.home)
    before = served.stat().st_ino
    expected = _showback(superset.home)
    build = subprocess.Popen(
        [str(GPULEDGER), "--home", str(superset.home), "build"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    during = 0
    while build.poll() is None:
        assert _chart_figures(superset) == expected
        during += 1
    output = build.stdout.read()
    assert build.returncode == 0, output
    assert during >= 3, f"only {during} chart queries during the build"
    assert served.stat().st_ino != before  # the build served a new copy
    assert _chart_figures(superset) == _showback(superset.home) == expected
