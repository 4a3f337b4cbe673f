"""Shared test helpers: write policy directories, sacct text and inventories; run the CLI; the
demo month, generated, landed and closed once per test session (`run_demo`)."""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import shutil
import subprocess
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from extractors.slurm.parse import XDMOD_FIELDS
from gpuledger.cli import main
from gpuledger.core.home import DEMO_POLICY_DIR
from gpuledger.demo import run_demo

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
REAL_SLURM = FIXTURES / "real" / "slurm"

POLICY_HEADERS = {
    "tenants": "tenant_id,tenant_name,department,cost_center",
    "ownership": "scope_type,scope_key,tenant_id,project_id,valid_from,valid_to",
    "reservations": "tenant_id,gpu_class,reserved_gpus,service_class,valid_from,valid_to",
    "rate_card": "rate_card_version,valid_from,valid_to,gpu_class,charge_basis,unit_price,currency",
    "cost_pools": "period,gpu_class,total_cost,fixed_share,currency",
    "partition_weights": "sharing_mode,gpu_model,profile,capacity_fraction",
    "gpu_classes": "gpu_model,gpu_class",
    "credits": "period,tenant_id,amount,reason,adjustment_id",
    "overheads": "period,overhead_id,amount,currency,description",
    "settings": "key,value",
}

H100 = "NVIDIA H100 80GB HBM3"

# `make pytest` runs the files on two workers (pytest-xdist, --dist loadfile: a file's tests,
# and its module fixtures, stay on one worker; a third worker on two cores made every test
# about 1.5x slower and the run longer). The files that take minutes go first, longest first
# (as measured in a whole run with --durations=0), so that no worker is left with one of them
# at the end while the other idles.
LONG_FILES = (
    "tests/integration/test_spark_parity.py",
    "tests/integrity/test_crashes.py",
    "tests/orchestration/test_close_job.py",
    "tests/orchestration/test_ui_e2e.py",
    "tests/e2e/test_close.py",
    "tests/benchmarks/test_bench_smoke.py",
    "tests/e2e/test_bi_superset.py",
    "tests/e2e/test_incremental.py",
    "tests/e2e/test_serving.py",
    "tests/e2e/test_focus_export.py",
    "tests/e2e/test_worked_examples.py",
    "tests/integration/test_slurm_live.py",
    "tests/integrity/test_thin_periods.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {path: index for index, path in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


def write_policy(folder: Path, tables: Mapping[str, Iterable[str]]) -> Path:
    """A policy directory: every file with its header, rows given as CSV lines."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, header in POLICY_HEADERS.items():
        rows = list(tables.get(name, ()))
        if name == "gpu_classes" and not rows:
            rows = [f"{H100},h100"]
        (folder / f"{name}.csv").write_text("\n".join([header, *rows]) + "\n")
    return folder


def ts(value: dt.datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%S")


@dataclass(frozen=True)
class Job:
    job_id: str
    account: str
    start: dt.datetime
    end: dt.datetime | None
    gpus: int
    node: str
    state: str = "COMPLETED"

    def line(self) -> str:
        elapsed = int(((self.end or self.start) - self.start).total_seconds())
        tres = f"billing={self.gpus},cpu={self.gpus},gres/gpu:h100={self.gpus},gres/gpu={self.gpus}"
        values = {
            "jobid": self.job_id,
            "jobidraw": self.job_id,
            "cluster": "test",
            "partition": "gpu",
            "qos": "normal",
            "account": self.account,
            "group": "g",
            "gid": "100",
            "user": "u",
            "uid": "1000",
            "submit": ts(self.start),
            "eligible": ts(self.start),
            "start": ts(self.start),
            "end": ts(self.end) if self.end else "Unknown",
            "elapsed": f"{elapsed // 3600:02d}:{elapsed % 3600 // 60:02d}:{elapsed % 60:02d}",
            "exitcode": "0:0" if self.state == "COMPLETED" else "1:0",
            "state": self.state,
            "nnodes": "1",
            "ncpus": str(self.gpus),
            "reqcpus": str(self.gpus),
            "reqmem": "1000M",
            "reqtres": f"billing={self.gpus},cpu={self.gpus},gres/gpu={self.gpus}",
            "alloctres": tres + ",mem=1000M,node=1",
            "timelimit": "UNLIMITED",
            "nodelist": self.node,
            "jobname": f"job{self.job_id}",
        }
        return "|".join(values[f] for f in XDMOD_FIELDS)


# headless Chromium (scripts/chromium/install.sh) that fetches nothing of its own
HEADLESS_CHROMIUM = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


@pytest.fixture(scope="session")
def chromium() -> str:
    """Headless Chromium for the site and UI tests (scripts/chromium/install.sh)."""
    subprocess.run(
        ["bash", str(REPO / "scripts" / "chromium" / "install.sh")], check=True, timeout=900
    )
    path = shutil.which("chromium")
    assert path, "scripts/chromium/install.sh did not put chromium on PATH"
    return path


def sacct_run_after(period: str) -> tuple[str, ...]:
    """The window of sacct text extracted for `period` (sacct -S its first instant) and run on
    the 3rd of the next month: `--covers-from` and `--extracted-at`. Its output covers the
    period through its end and the default settle lag (24 h), so the period's source_coverage
    check passes; sacct text names neither (a story whose jobs start after the 1st or all end
    mid-month would cover only from its earliest record to its latest)."""
    year, month = map(int, period.split("-"))
    after = dt.datetime(year + month // 12, month % 12 + 1, 3)
    return (
        "--covers-from",
        f"{period}-01T00:00:00Z",
        "--extracted-at",
        f"{after:%Y-%m-%dT%H:%M:%SZ}",
    )


def write_sacct(path: Path, jobs: Sequence[Job]) -> Path:
    path.write_text("".join(job.line() + "\n" for job in jobs))
    return path


def write_inventory(path: Path, nodes: Mapping[str, int], model: str = H100) -> Path:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["gpu_uuid", "node", "gpu_model", "gpu_class", "in_service_from", "in_service_to"]
    )
    for node, count in nodes.items():
        for index in range(count):
            digest = hashlib.md5(f"{node}/{index}".encode()).hexdigest()
            uuid = f"GPU-{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:]}"
            writer.writerow([uuid, node, model, "", "2025-01-01T00:00:00Z", ""])
    path.write_text(out.getvalue())
    return path


@dataclass(frozen=True)
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


def run_cli(home: Path, policy: Path | None, *args: str) -> CliResult:
    out, err = io.StringIO(), io.StringIO()
    argv = ["--home", str(home)]
    if policy is not None:
        argv += ["--policy", str(policy)]
    with redirect_stdout(out), redirect_stderr(err):
        code = main([*argv, *args])
    return CliResult(code, out.getvalue(), err.getvalue())


def sql(home: Path, statement: str, params: Sequence[object] = ()) -> list[tuple]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        return con.execute(statement, list(params)).fetchall()


@pytest.fixture(scope="session", autouse=True)
def own_dagster_instances() -> Iterator[None]:
    """Every home a test makes records its runs in its own `<home>/dagster`, never in the
    DAGSTER_HOME of whoever runs the tests."""
    with pytest.MonkeyPatch.context() as env:
        env.delenv("DAGSTER_HOME", raising=False)
        yield


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture(scope="session")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The demo's home and what it printed."""
    home = tmp_path_factory.mktemp("demo") / "home"
    home.mkdir()
    printed: list[str] = []
    exit_code = run_demo(home, DEMO_POLICY_DIR, "2026-10", 7, out=printed.append)
    stdout = "\n".join(printed) + "\n"
    assert exit_code == 0, stdout
    return home, stdout
