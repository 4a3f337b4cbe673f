"""Readers never block the pipeline: BI tools and `gpuledger report` read the served copy
(<home>/serving/), which a build and a close replace atomically; a process that holds
warehouse.duckdb itself makes a build wait a bounded time, then name it in one line.

The readers are real second processes (tests/e2e/reader.py).
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from gpuledger.core import period_scope
from gpuledger.core.home import home_lock, served_path, warehouse_path
from gpuledger.core.serving import manifest_path, parquet_dir, serve
from gpuledger.core.warehouse import WarehouseLocked, build_error, run_dbt
from tests.conftest import (
    REPO,
    Job,
    run_cli,
    sacct_run_after,
    write_inventory,
    write_policy,
    write_sacct,
)

READER = REPO / "tests" / "e2e" / "reader.py"
MARCH = dt.datetime(2026, 3, 1)
APRIL = dt.datetime(2026, 4, 1)
POLICY = {
    "tenants": ["atlas,Team Atlas,research,cc-1"],
    "ownership": ["slurm_account,atlas,atlas,,2026-01-01T00:00:00Z,"],
    "rate_card": ["r1,2026-01-01T00:00:00Z,,h100,allocated_gpu_hour,2.00,USD"],
    "settings": ["charging_model,allocation_rate", "unattributed_tolerance_pct,2", "currency,USD"],
}


@dataclass
class Reader:
    mode: str
    process: subprocess.Popen
    out: Path
    stop: Path

    def observations(self) -> list[dict]:
        self.stop.touch()
        assert self.process.wait(timeout=120) == 0, self.process.stderr.read()
        return json.loads(self.out.read_text())


@contextmanager
def reader(mode: str, home: Path, tmp: Path, period: str = "") -> Iterator[Reader]:
    """A reader process in `mode`, started and seen running (its first query done)."""
    out, stop = tmp / f"{mode}.json", tmp / f"{mode}.stop"
    command = [sys.executable, str(READER), mode, str(home), str(stop), str(out), period]
    process = subprocess.Popen(command, cwd=REPO, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not out.with_suffix(".ready").exists():
            assert process.poll() is None, process.stderr.read()
            assert time.monotonic() < deadline, f"the {mode} reader did not start"
            time.sleep(0.1)
        yield Reader(mode, process, out, stop)
    finally:
        stop.touch()
        if process.poll() is None:
            process.wait(timeout=120)


def _land(home: Path, tmp: Path, name: str, jobs: list[Job]) -> None:
    sacct = write_sacct(tmp / f"{name}.txt", jobs)
    landed = run_cli(
        home, None, "ingest", "slurm", "--file", str(sacct), *sacct_run_after("2026-03")
    )
    assert landed.exit_code == 0


def _march(home: Path, tmp: Path) -> Path:
    """The home's inventory (one node of 8 GPUs) and a March job landed: the policy."""
    policy = write_policy(tmp / "policy", POLICY)
    inventory = write_inventory(tmp / "inventory.csv", {"node-a": 8})
    assert run_cli(home, None, "ingest", "inventory", "--file", str(inventory)).exit_code == 0
    _land(
        home,
        tmp,
        "march",
        [Job("1", "atlas", MARCH, MARCH + dt.timedelta(hours=100), 4, "node-a")],
    )
    return policy


def _between(observations: list[dict], start: float, end: float) -> list[dict]:
    return [o for o in observations if start <= o["t"] <= end]


def test_readers_of_the_served_copy_never_block_a_build_or_a_close(
    tmp_path: Path, home: Path
) -> None:
    policy = _march(home, tmp_path)
    first = run_cli(home, policy, "build")
    assert first.exit_code == 0, first.stderr
    assert json.loads(manifest_path(home).read_text())["closes"] == {}

    with (
        reader("held", home, tmp_path) as held,
        reader("reopen", home, tmp_path) as reopen,
        reader("report", home, tmp_path, "2026-03") as report,
    ):
        _land(
            home,
            tmp_path,
            "april",
            [Job("2", "atlas", APRIL, APRIL + dt.timedelta(hours=10), 4, "node-a")],
        )
        started = time.time()
        build = run_cli(home, policy, "build")
        built = time.time()
        close = run_cli(home, policy, "close", "--period", "2026-03", "--approver", "finance")
        closed = time.time()
        seen = {r.mode: r.observations() for r in (held, reopen, report)}

    assert build.exit_code == 0, build.stderr
    assert close.exit_code == 0, close.stdout + close.stderr
    close_id = close.stdout.strip().splitlines()[-1].rsplit(" ", 1)[-1]
    assert close_id.startswith("close-2026-03-v1-")
    for mode, observations in seen.items():
        assert [o for o in observations if not o["ok"]] == [], mode
        assert len(_between(observations, started, built)) >= 3, mode  # queried during the build
        assert len(_between(observations, built, closed)) >= 3, mode  # and during the close

    march = ["2026-03", "provisional", "", 1]
    april = ["2026-04", "provisional", "", 1]
    # the connection held open kept reading the copy it opened: the build before
    assert {json.dumps(o["chargeback"]) for o in seen["held"]} == {json.dumps([march])}
    # new connections saw the build's new copy, then the close's
    reopened = [o["chargeback"] for o in seen["reopen"]]
    assert [march, april] in reopened
    assert reopened[-1] == [["2026-03", "closed", close_id, 1], april]
    assert "(provisional, USD)" in seen["report"][0]["title"]
    assert "(closed, USD)" in seen["report"][-1]["title"]

    manifest = json.loads(manifest_path(home).read_text())
    assert manifest["closes"] == {"2026-03": close_id}
    assert manifest["row_counts"]["fact_chargeback"] == 2
    with duckdb.connect() as con:
        parquet = str(parquet_dir(home) / "fact_chargeback.parquet")
        assert con.execute(
            "select period, status from read_parquet(?) order by 1", [parquet]
        ).fetchall() == [("2026-03", "closed"), ("2026-04", "provisional")]
    assert sorted(p.name for p in served_path(home).parent.iterdir()) == [
        "manifest.json",
        "marts.duckdb",
        "parquet",
    ]


def _served_equals_the_warehouse(home: Path) -> dict[str, object]:
    """Every mart of the served copy and its Parquet file hold the warehouse's rows (as
    multisets); the manifest's `kept`."""
    manifest = json.loads(manifest_path(home).read_text())
    with duckdb.connect() as con:
        con.execute(f"attach '{warehouse_path(home)}' as w (read_only)")
        con.execute(f"attach '{served_path(home)}' as s (read_only)")
        marts = [
            name
            for (name,) in con.execute(
                "select table_name from information_schema.tables "
                "where table_catalog = 'w' and table_schema = 'marts' order by 1"
            ).fetchall()
        ]
        assert sorted(manifest["row_counts"]) == marts
        for name in marts:
            parquet = str(parquet_dir(home) / f"{name}.parquet")
            copies = (f's.main."{name}"', f"read_parquet('{parquet}')")
            for copy in copies:
                for one, other in ((f'w.marts."{name}"', copy), (copy, f'w.marts."{name}"')):
                    (missing,) = con.execute(
                        f"select count(*) from (select * from {one} except all "
                        f"select * from {other})"
                    ).fetchone()
                    assert missing == 0, (name, one, other)
            (rows,) = con.execute(f'select count(*) from w.marts."{name}"').fetchone()
            assert manifest["row_counts"][name] == rows, name
    return manifest["kept"]


def test_a_serve_copies_what_changed_since_the_copy_before_and_equals_the_warehouse(
    tmp_path: Path, home: Path
) -> None:
    policy = _march(home, tmp_path)
    assert run_cli(home, policy, "build").exit_code == 0
    # the first serve has no copy before it
    assert _served_equals_the_warehouse(home) == {}

    _land(
        home,
        tmp_path,
        "april",
        [Job("2", "atlas", APRIL, APRIL + dt.timedelta(hours=10), 4, "node-a")],
    )
    close = run_cli(home, policy, "close", "--period", "2026-03", "--approver", "finance")
    assert close.exit_code == 0, close.stdout + close.stderr
    # the close's second serve (after the ledger's marts were rebuilt) keeps every other
    # table of the first, Parquet file and all; views (dim_period reads the ledger) and the
    # ledger's marts are copied again
    kept = _served_equals_the_warehouse(home)
    ledger_marts = {"fact_chargeback", "fact_showback", "fact_charge_line_evidence"}
    assert {"fact_gpu_allocation", "fact_idle_capacity", "dim_workload", "dim_gpu"} <= set(kept)
    assert set(kept).isdisjoint(ledger_marts | {"dim_period"})
    assert set(kept.values()) == {"all"}
    parquet = parquet_dir(home) / "fact_gpu_allocation.parquet"
    kept_file = parquet.stat().st_ino

    # the next build keeps the closed month: the marts built by period keep its rows and
    # take April's from the warehouse; every other table is copied again
    build = run_cli(home, policy, "build")
    assert build.exit_code == 0, build.stderr
    kept = _served_equals_the_warehouse(home)
    by_period = [name for schema, name in period_scope.PERIOD_MODELS if schema == "marts"]
    assert {
        "fact_gpu_allocation",
        "fact_idle_capacity",
        "fact_failed_work",
        "fact_charge_line_evidence",
    } <= set(by_period)
    assert kept == {name: ["2026-03"] for name in by_period}
    assert parquet.stat().st_ino != kept_file  # April's rows changed: a new file

    # a dbt command by hand records itself: the mart it selected is copied again
    run_dbt(home, ["run", "--select", "fact_chargeback"])
    with home_lock(home):
        served = serve(home)
    assert served.kept and "fact_chargeback" not in served.kept
    assert set(served.kept.values()) == {"all"}
    assert _served_equals_the_warehouse(home) == served.kept

    # a copy whose commands the warehouse cannot name (here: another record) is made whole
    manifest = json.loads(manifest_path(home).read_text())
    manifest["served_through"]["invocation_id"] = "another"
    manifest_path(home).write_text(json.dumps(manifest))
    with home_lock(home):
        assert serve(home).kept == {}
    assert _served_equals_the_warehouse(home) == {}


def test_a_process_holding_the_warehouse_makes_build_and_close_wait_then_name_it(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    policy = write_policy(tmp_path / "policy", POLICY)
    home.mkdir()
    duckdb.connect(str(warehouse_path(home))).close()
    monkeypatch.setenv("GPULEDGER_LOCK_WAIT_SECONDS", "3")
    with reader("warehouse", home, tmp_path) as holder:
        pid = holder.process.pid
        for command in (["build"], ["close", "--period", "2026-03"]):
            started = time.monotonic()
            result = run_cli(home, policy, *command)
            waited = time.monotonic() - started
            assert result.exit_code == 1, command
            assert result.stdout == ""
            (line,) = result.stderr.splitlines()
            assert line.startswith(f"gpuledger: {warehouse_path(home)} is held by process {pid} (")
            assert "reader.py warehouse" in line
            assert f"point it at {served_path(home)}" in line
            assert waited >= 3, command


def test_dbt_meeting_the_lock_is_reported_as_the_process_holding_it(
    tmp_path: Path, home: Path
) -> None:
    home.mkdir()
    duckdb.connect(str(warehouse_path(home))).close()
    with reader("warehouse", home, tmp_path) as holder:
        with pytest.raises(duckdb.IOException) as met:
            duckdb.connect(str(warehouse_path(home)))
        dbt_output = f'Traceback (most recent call last):\n  File "connections.py"\n{met.value}\n'
        error = build_error("build", tmp_path / "target", dbt_output)
    assert isinstance(error, WarehouseLocked)
    assert str(error).startswith(
        f"{warehouse_path(home)} is held by process {holder.process.pid} ("
    )
    assert "\n" not in str(error)


def test_report_before_any_build_says_to_build(home: Path) -> None:
    result = run_cli(home, None, "report", "--period", "2026-03")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"gpuledger: {served_path(home)}: no marts served yet; run `gpuledger build` first"
    ]
