"""Expectation suites: a record that breaks its suite is quarantined at landing (with its
steps), never its neighbours; Great Expectations confirms what landed."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from dagster import AssetKey, ExecuteInProcessResult

from extractors.inventory.records import InventoryDevice
from extractors.rawstore import batch_files
from extractors.slurm.records import SlurmJob
from orchestration.validation import suite_for
from tests.conftest import Job, run_cli, sql, write_inventory, write_policy
from tests.orchestration.conftest import (
    BASE_POLICY,
    drop_in_inbox,
    execute,
    step_failures,
)

DAY = dt.datetime(2026, 3, 25, 8)
GOOD = Job("10", "atlas", dt.datetime(2026, 3, 2), dt.datetime(2026, 3, 2, 5), 2, "node-a")
# sacct says it ended two hours before it started; the parser takes it (elapsed 0)
BACKWARDS = Job(
    "11", "atlas", dt.datetime(2026, 3, 3, 12), dt.datetime(2026, 3, 3, 10), 1, "node-a"
)


def _backwards_line() -> str:
    return BACKWARDS.line().replace("|-2:00:00|", "|00:00:00|")


def test_suites_are_derived_from_the_record_types() -> None:
    slurm = {e.describe() for e in suite_for(SlurmJob)}
    assert {
        "cluster is present",
        "job_id is present",
        "alloc_gpu_count is present",
        "source_line is present",
        "elapsed_seconds >= 0",
        "timelimit_minutes >= 0",
        "end_at >= start_at",
    } <= slurm
    assert "account is present" not in slurm  # optional in the record
    inventory = {e.describe() for e in suite_for(InventoryDevice)}
    assert {"gpu_uuid is present", "in_service_to >= in_service_from"} <= inventory


def _check(result: ExecuteInProcessResult, table: str) -> bool:
    (evaluation,) = [
        e
        for e in result.get_asset_check_evaluations()
        if e.asset_key == AssetKey(["slurm", table]) and e.check_name == "raw_batch_expectations"
    ]
    return evaluation.passed


@pytest.fixture(scope="module")
def inbox_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, Path, ExecuteInProcessResult]:
    tmp = tmp_path_factory.mktemp("inbox")
    home = tmp / "home"
    policy = write_policy(tmp / "policy", BASE_POLICY)
    inventory = write_inventory(tmp / "inventory.csv", {"node-a": 8})
    assert run_cli(home, policy, "ingest", "inventory", "--file", str(inventory)).exit_code == 0
    drop_in_inbox(home, "slurm", "good.txt", GOOD.line() + "\n", DAY)
    drop_in_inbox(home, "slurm", "bad.txt", GOOD.line() + "\n" + _backwards_line() + "\n", DAY)
    drop_in_inbox(home, "slurm", "garbage.txt", b"\xff\xfe not text", DAY)
    drop_in_inbox(home, "slurm", "tomorrow.txt", GOOD.line() + "\n", DAY + dt.timedelta(days=1))
    return home, policy, execute("land_inbox", home, policy, "2026-03-25")


def test_a_record_that_breaks_its_suite_is_quarantined_not_its_batch(
    inbox_run: tuple[Path, Path, ExecuteInProcessResult],
) -> None:
    home, policy, result = inbox_run
    assert _check(result, "slurm_jobs") is False  # the backwards job was held back
    manifests = [pq.read_table(p).to_pylist()[0] for p in batch_files(home / "raw" / "batches")]
    bad = next(m for m in manifests if m["file"].endswith("bad.txt"))
    good = next(m for m in manifests if m["file"].endswith("good.txt"))
    assert (bad["records_read"], bad["records_landed"], bad["records_quarantined"]) == (2, 1, 1)
    assert good["records_landed"] == 1
    # the good neighbour landed; the backwards job is in quarantine with its expectation
    landed = pq.read_table(home / "raw" / "slurm_jobs" / f"{bad['batch_id']}.parquet")
    assert landed.column("job_id").to_pylist() == ["10"]
    rows = pq.read_table(home / "raw" / "quarantine" / f"{bad['batch_id']}.parquet").to_pylist()
    assert [(r["line"], r["field"], r["reason"]) for r in rows] == [
        (2, "start_at,end_at", "slurm_jobs: expectation end_at >= start_at failed")
    ]
    # Great Expectations confirms what landed meets the suite
    results = json.loads((home / "validations" / "slurm" / f"{bad['batch_id']}.json").read_text())
    assert results["outcome"] == "passed"
    assert results["suites"]["slurm_jobs"]["success"] is True
    # landing the same content again is still a no-op
    again = run_cli(
        home, policy, "ingest", "slurm", "--file", str(home / "inbox/.landed/slurm/bad.txt")
    )
    assert "already landed" in again.stdout and "landed 1, quarantined 1" in again.stdout


def test_inbox_files_are_moved_and_unreadable_ones_fail_the_step(
    inbox_run: tuple[Path, Path, ExecuteInProcessResult],
) -> None:
    home, _, result = inbox_run
    landed = home / "inbox" / ".landed" / "slurm"
    assert sorted(p.name for p in landed.iterdir()) == ["bad.txt", "good.txt"]
    failed = home / "inbox" / ".failed" / "slurm"
    assert (failed / "garbage.txt").exists()
    assert "invalid UTF-8 byte" in (failed / "garbage.txt.error.txt").read_text()
    assert "garbage.txt: " in step_failures(result)["land_slurm"]
    # another day's file waits for its own partition
    assert (home / "inbox" / "slurm" / "tomorrow.txt").exists()
    # the materialization was recorded before the step failed
    assert result.asset_materializations_for_node("land_slurm")


def test_the_build_reads_only_records_that_met_their_suites(
    inbox_run: tuple[Path, Path, ExecuteInProcessResult],
) -> None:
    home, policy, _ = inbox_run
    # a file whose only record breaks its suite lands nothing: the ingest says so, exit 1
    cli_file = home.parent / "cli.txt"
    cli_file.write_text(
        _backwards_line().replace("|11|11|", "|12|12|").replace("job11", "job12") + "\n"
    )
    ingested = run_cli(home, policy, "ingest", "slurm", "--file", str(cli_file))
    assert ingested.exit_code == 1
    assert "read 1, landed 0, quarantined 1" in ingested.stdout
    assert "landed no record" in ingested.stderr
    built = run_cli(home, policy, "build")
    assert built.exit_code == 0, built.stderr
    assert sql(home, "select job_id from staging.stg_slurm__jobs order by 1") == [("10",)]
    outcomes = sql(
        home,
        "select validation_outcome, count(*) from staging.stg_ledger__batch_validations "
        "group by 1 order by 1",
    )
    assert outcomes == [("passed", 4)]  # inventory, good, bad and cli: what landed is sound
    assert sql(
        home,
        "select observed_value from marts.fact_reconciliation "
        "where check_name = 'quarantined_records' and period = '2026-03'",
    ) == [(Decimal(2),)]
