"""kill -9 at the points where a crash hurts most leaves no partial batch and a ledger the next
command completes: after each crash the next command succeeds, and the close it publishes has
the very lines (and close id, a hash of them) an uninterrupted close publishes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from extractors.crashpoints import VARIABLE
from extractors.rawstore import batch_files
from gpuledger.core.ledger import current_close, lines_hash, published_lines
from tests.conftest import (
    REPO,
    Job,
    run_cli,
    sacct_run_after,
    write_inventory,
    write_policy,
    write_sacct,
)
from tests.orchestration.conftest import APRIL, MAPPED_POLICY

RUN_AFTER = sacct_run_after("2026-04")  # sacct run on 3 May covers April

JOBS = [
    Job("1", "atlas", APRIL, APRIL.replace(day=5), 4, "node-a"),
    Job("2", "scratch", APRIL.replace(day=2), APRIL.replace(day=3), 2, "node-a"),
]


def gpuledger(
    home: Path, policy: Path, *args: str, crash_at: str | None = None
) -> subprocess.CompletedProcess:
    """The CLI killed with -9 at `crash_at`, in a process of its own; without one, the next
    command, run in this process (as tests.conftest.run_cli: the same code on the same files,
    without the ~5 s of a fresh interpreter's imports)."""
    if crash_at is None:
        ran = run_cli(home, policy, *args)
        return subprocess.CompletedProcess(args, ran.exit_code, ran.stdout, ran.stderr)
    env = {k: v for k, v in os.environ.items() if k != VARIABLE}
    env[VARIABLE] = crash_at
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "gpuledger.cli",
            "--home",
            str(home),
            "--policy",
            str(policy),
            *args,
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


@pytest.fixture(scope="module")
def story(tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("crashes")
    policy = write_policy(tmp / "policy", MAPPED_POLICY)
    inventory = write_inventory(tmp / "inventory.csv", {"node-a": 8})
    sacct = write_sacct(tmp / "sacct.txt", JOBS)
    control = tmp / "control"
    for args in (
        ("ingest", "inventory", "--file", str(inventory)),
        ("ingest", "slurm", "--file", str(sacct), *RUN_AFTER),
    ):
        assert gpuledger(control, policy, *args).returncode == 0
    closed = gpuledger(control, policy, "close", "--period", "2026-04")
    assert closed.returncode == 0, closed.stderr
    expected = current_close(control, "2026-04")
    home = tmp / "home"
    assert gpuledger(home, policy, "ingest", "inventory", "--file", str(inventory)).returncode == 0
    return {
        "home": home,
        "policy": policy,
        "sacct": sacct,
        "expected": expected,
        "expected_hash": lines_hash(published_lines(control, expected.close_id)),
    }


def _killed(result: subprocess.CompletedProcess) -> bool:
    return result.returncode == -signal.SIGKILL


def test_kill_mid_ingest_leaves_no_partial_batch(story: dict) -> None:
    home, policy = story["home"], story["policy"]
    crashed = gpuledger(
        home,
        policy,
        "ingest",
        "slurm",
        "--file",
        str(story["sacct"]),
        *RUN_AFTER,
        crash_at="ingest:before-manifest",
    )
    assert _killed(crashed)
    # the batch's table files are there, its manifest is not: no reader sees the batch
    assert batch_files(home / "raw" / "slurm_jobs")
    manifests = {p.stem for p in batch_files(home / "raw" / "batches")}
    assert all(p.stem not in manifests for p in batch_files(home / "raw" / "slurm_jobs"))
    again = gpuledger(home, policy, "ingest", "slurm", "--file", str(story["sacct"]), *RUN_AFTER)
    assert again.returncode == 0, again.stderr
    assert "swept a file an interrupted ingest left behind: raw/slurm_jobs/" in again.stderr
    assert "read 2, landed 2, quarantined 0" in again.stdout
    assert list((home / "quarantine" / "interrupted").rglob("*.parquet"))


def test_kill_mid_build_leaves_no_dbt_holding_the_warehouse(story: dict) -> None:
    home, policy = story["home"], story["policy"]
    crashed = gpuledger(home, policy, "close", "--period", "2026-04", crash_at="build:dbt-running")
    assert _killed(crashed)
    # the dbt child died with it (it would hold warehouse.duckdb): the next build runs
    built = gpuledger(home, policy, "build")
    assert built.returncode == 0, built.stderr


def test_kill_mid_checks_publishes_nothing(story: dict) -> None:
    home, policy = story["home"], story["policy"]
    crashed = gpuledger(home, policy, "close", "--period", "2026-04", crash_at="close:checks")
    assert _killed(crashed)
    assert current_close(home, "2026-04") is None


def test_kill_between_ledger_write_and_mart_refresh_is_finished_by_the_next_close(
    story: dict,
) -> None:
    home, policy = story["home"], story["policy"]
    crashed = gpuledger(
        home, policy, "close", "--period", "2026-04", crash_at="close:after-ledger-write"
    )
    assert _killed(crashed)
    written = current_close(home, "2026-04")
    assert written is not None and written.close_version == 1
    assert not (home / "ledger" / "2026-04" / f"{written.close_id}.json").exists()
    finished = gpuledger(home, policy, "close", "--period", "2026-04")
    assert finished.returncode == 0, finished.stderr
    assert f"period 2026-04 closed and published as {written.close_id}" in finished.stdout
    assert (home / "ledger" / "2026-04" / f"{written.close_id}.json").exists()
    report = gpuledger(home, policy, "report", "--period", "2026-04")
    assert "(closed, USD)" in report.stdout
    assert gpuledger(home, policy, "close", "--period", "2026-04").returncode == 4


def test_kill_mid_serve_keeps_the_previous_served_copy_and_the_next_close_serves_it(
    story: dict,
) -> None:
    home, policy = story["home"], story["policy"]
    reopened = gpuledger(home, policy, "reopen", "--period", "2026-04", "--reason", "rehearse")
    assert reopened.returncode == 0, reopened.stderr
    served_before = (home / "serving" / "marts.duckdb").stat().st_ino
    crashed = gpuledger(home, policy, "close", "--period", "2026-04", crash_at="serve:before-swap")
    assert _killed(crashed)
    # readers still have the last complete copy (the reopened, provisional April)
    assert (home / "serving" / "marts.duckdb").stat().st_ino == served_before
    report = gpuledger(home, policy, "report", "--period", "2026-04")
    assert "(provisional, USD)" in report.stdout
    finished = gpuledger(home, policy, "close", "--period", "2026-04")
    assert finished.returncode == 0, finished.stderr
    assert "(closed, USD)" in gpuledger(home, policy, "report", "--period", "2026-04").stdout
    assert not list((home / "serving").glob(".marts-*"))


def test_after_every_crash_the_close_has_the_uninterrupted_lines(story: dict) -> None:
    close = current_close(story["home"], "2026-04")
    # version 2 (after the rehearsal reopen), with the very lines of the uninterrupted close
    assert close.close_version == 2
    assert close.lines_sha256 == story["expected"].lines_sha256
    assert lines_hash(published_lines(story["home"], close.close_id)) == story["expected_hash"]
