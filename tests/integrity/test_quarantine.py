"""Quarantined records of a period block its close above the tolerance until someone
acknowledges (recorded on the close) or releases them (`gpuledger quarantine`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import (
    Job,
    run_cli,
    sacct_run_after,
    sql,
    write_inventory,
    write_policy,
    write_sacct,
)
from tests.orchestration.conftest import APRIL, MAPPED_POLICY

RUN_AFTER = sacct_run_after("2026-04")  # sacct run on 3 May covers April

GOOD = Job("1", "atlas", APRIL, APRIL.replace(day=3), 2, "node-a")
# sacct printed its End before its Start (Elapsed as sacct prints it)
BACKWARDS = Job(
    "2", "atlas", APRIL.replace(day=5, hour=12), APRIL.replace(day=5, hour=10), 1, "node-a"
)


def _backwards(line: str) -> str:
    return line.replace("|-2:00:00|", "|02:00:00|")


@pytest.fixture(scope="module")
def landed(tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("quarantine")
    home, policy = tmp / "home", write_policy(tmp / "policy", MAPPED_POLICY)
    inventory = write_inventory(tmp / "inventory.csv", {"node-a": 8})
    assert run_cli(home, policy, "ingest", "inventory", "--file", str(inventory)).exit_code == 0
    sacct = write_sacct(tmp / "sacct.txt", [GOOD])
    sacct.write_text(sacct.read_text() + _backwards(BACKWARDS.line()) + "\n")
    ingested = run_cli(home, policy, "ingest", "slurm", "--file", str(sacct), *RUN_AFTER)
    assert "read 2, landed 1, quarantined 1" in ingested.stdout
    batch = ingested.stdout.split("-> batch ")[1].split()[0]
    return {"home": home, "policy": policy, "sacct": sacct, "batch": batch}


def test_quarantine_list_names_file_line_field_and_reason(landed: dict) -> None:
    listed = run_cli(landed["home"], None, "quarantine", "list", "--period", "2026-04")
    assert listed.exit_code == 0
    assert f"{landed['sacct']}:2" in listed.stdout
    assert "start_at,end_at" in listed.stdout
    assert "slurm_jobs: expectation end_at >= start_at failed" in listed.stdout
    assert "1 open, 0 acknowledged, 0 released" in listed.stdout
    assert run_cli(landed["home"], None, "quarantine", "list", "--period", "2026-06").stdout == (
        "no quarantined record for 2026-06\n"
    )


def test_an_open_quarantined_record_blocks_the_close(landed: dict) -> None:
    blocked = run_cli(landed["home"], landed["policy"], "close", "--period", "2026-04")
    assert blocked.exit_code == 3
    assert "quarantined_records" in blocked.stdout
    # of the 8 inventory records (a CMDB export spans no time: it counts in every period) and
    # the 2 sacct records
    assert "1 open of 10 records read (0 acknowledged, 0 released)" in blocked.stdout


def test_an_acknowledged_record_lets_the_close_through_and_is_recorded_on_it(
    landed: dict,
) -> None:
    home, batch = landed["home"], landed["batch"]
    refused = run_cli(home, None, "quarantine", "acknowledge", "--batch", batch, "--reason", " ")
    assert refused.exit_code == 1 and "needs a --reason" in refused.stderr
    done = run_cli(
        home,
        None,
        "quarantine",
        "acknowledge",
        "--batch",
        batch,
        "--line",
        "2",
        "--reason",
        "clock skew on node-a; 2 GPU-h written off",
        "--by",
        "ops",
    )
    assert done.exit_code == 0, done.stderr
    again = run_cli(home, None, "quarantine", "acknowledge", "--batch", batch, "--reason", "x")
    assert again.exit_code == 1 and "is already acknowledged" in again.stderr
    closed = run_cli(home, landed["policy"], "close", "--period", "2026-04")
    assert closed.exit_code == 0, closed.stdout + closed.stderr
    assert sql(
        home,
        "select status, detail from marts.fact_reconciliation "
        "where period = '2026-04' and check_name = 'quarantined_records'",
    ) == [
        (
            "pass",
            "0 open of 10 records read (1 acknowledged, 0 released): "
            "gpuledger quarantine list --period 2026-04",
        )
    ]
    (close_id,) = sql(home, "select close_id from marts.dim_period where period = '2026-04'")[0]
    assert sql(
        home,
        "select batch_id, line_number, decision_reason, decided_by from "
        "ledger.close_acknowledgements where close_id = ?",
        [close_id],
    ) == [(batch, 2, "clock skew on node-a; 2 GPU-h written off", "ops")]
    evidence = json.loads((home / "ledger" / "2026-04" / f"{close_id}.json").read_text())
    assert evidence["acknowledged_quarantine"][0]["line"] == 2


def test_a_record_the_parser_never_read_cannot_be_released(tmp_path: Path) -> None:
    home = tmp_path / "home"
    bad = tmp_path / "bad.txt"
    bad.write_text(GOOD.line() + "\n" + "1|2|3\n")
    ingested = run_cli(home, None, "ingest", "slurm", "--file", str(bad))
    assert "read 2, landed 1, quarantined 1" in ingested.stdout
    batch = ingested.stdout.split("-> batch ")[1].split()[0]
    refused = run_cli(home, None, "quarantine", "release", "--batch", batch, "--reason", "try")
    assert refused.exit_code == 1
    assert f"{bad}:2 cannot be released: it was never parsed" in refused.stderr


def test_a_released_record_lands_with_the_records_held_back_because_of_it(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    sacct = write_sacct(tmp_path / "sacct.txt", [GOOD])
    # its .batch step (JobID and JobIDRaw 2.batch), held back with its job
    step = "2.batch|2.batch|" + _backwards(BACKWARDS.line()).removeprefix("2|2|")
    sacct.write_text(sacct.read_text() + _backwards(BACKWARDS.line()) + "\n" + step + "\n")
    ingested = run_cli(home, None, "ingest", "slurm", "--file", str(sacct), *RUN_AFTER)
    assert "read 3, landed 1, quarantined 2" in ingested.stdout
    batch = ingested.stdout.split("-> batch ")[1].split()[0]
    released = run_cli(
        home,
        None,
        "quarantine",
        "release",
        "--batch",
        batch,
        "--line",
        "2",
        "--reason",
        "times checked against the node's log",
        "--by",
        "ops",
    )
    assert released.exit_code == 0, released.stderr
    assert "read 2, landed 2, quarantined 0" in released.stdout
    listed = run_cli(home, None, "quarantine", "list", "--batch", batch)
    assert "0 open, 0 acknowledged, 2 released" in listed.stdout
