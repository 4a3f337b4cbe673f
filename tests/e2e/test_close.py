"""Period close: blocked over the unattributed tolerance, published once mapped, never twice."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

from gpuledger.runs import EXIT_ALREADY_CLOSED, EXIT_BLOCKED
from tests.conftest import (
    Job,
    run_cli,
    sacct_run_after,
    sql,
    write_inventory,
    write_policy,
    write_sacct,
)

MARCH = dt.datetime(2026, 3, 1)
BASE_POLICY = {
    "tenants": ["atlas,Team Atlas,research,cc-1"],
    "ownership": ["slurm_account,atlas,atlas,,2026-01-01T00:00:00Z,"],
    "rate_card": ["r1,2026-01-01T00:00:00Z,,h100,allocated_gpu_hour,2.00,USD"],
    "settings": ["charging_model,allocation_rate", "unattributed_tolerance_pct,2", "currency,USD"],
}


def _land(home: Path, tmp: Path) -> None:
    jobs = [
        Job("1", "atlas", MARCH, MARCH + dt.timedelta(hours=100), 4, "node-a"),
        # 50 GPU-hours under an account nobody owns: 50 / 450 = 11.1% unattributed
        Job("2", "scratch", MARCH, MARCH + dt.timedelta(hours=50), 1, "node-a"),
    ]
    inventory = write_inventory(tmp / "inventory.csv", {"node-a": 8})
    assert run_cli(home, None, "ingest", "inventory", "--file", str(inventory)).exit_code == 0
    sacct = write_sacct(tmp / "sacct.txt", jobs)
    landed = run_cli(
        home, None, "ingest", "slurm", "--file", str(sacct), *sacct_run_after("2026-03")
    )
    assert landed.exit_code == 0


def test_close_blocks_over_tolerance_then_publishes_once_mapped(tmp_path: Path, home: Path) -> None:
    _land(home, tmp_path)
    unmapped = write_policy(tmp_path / "unmapped", BASE_POLICY)

    blocked = run_cli(home, unmapped, "close", "--period", "2026-03")
    assert blocked.exit_code == EXIT_BLOCKED
    assert "BLOCKED" in blocked.stdout
    assert "unattributed_gpu_hours" in blocked.stdout
    assert "11.111111 percent of allocated gpu_hours (limit 2.000000) BLOCKS" in blocked.stdout
    assert "50.0 of 450.0 GPU-Hours have no owner".lower() in blocked.stdout.lower()
    # a blocked close still leaves provisional showback, and publishes nothing
    assert sql(home, "select distinct status from marts.fact_chargeback") == [("provisional",)]
    assert sql(home, "select count(*) from ledger.closes") == [(0,)]
    report = run_cli(home, unmapped, "report", "--period", "2026-03")
    assert report.exit_code == 0 and "provisional" in report.stdout

    mapped = write_policy(
        tmp_path / "mapped",
        BASE_POLICY
        | {
            "ownership": [
                *BASE_POLICY["ownership"],
                "slurm_account,scratch,atlas,sandbox,2026-01-01T00:00:00Z,",
            ]
        },
    )
    published = run_cli(home, mapped, "close", "--period", "2026-03", "--approver", "finance")
    assert published.exit_code == 0, published.stdout + published.stderr
    assert "closed and published as close-2026-03-v1-" in published.stdout
    assert sql(home, "select tenant_id, amount, status from marts.fact_chargeback") == [
        ("atlas", 900, "closed")
    ]
    close = sql(home, "select close_id, approver, policy_hash, line_count from ledger.closes")
    assert len(close) == 1 and close[0][1] == "finance" and close[0][3] == 1
    evidence = json.loads((home / "ledger" / "2026-03" / f"{close[0][0]}.json").read_text())
    assert evidence["policy_hash"] == close[0][2]
    assert evidence["total_amount"] == "900.00"

    again = run_cli(home, mapped, "close", "--period", "2026-03")
    assert again.exit_code == EXIT_ALREADY_CLOSED
    assert "already closed" in again.stdout and close[0][0] in again.stdout
    assert sql(home, "select count(*) from ledger.chargeback_lines") == [(1,)]


def test_closed_period_is_not_rewritten_by_later_builds(tmp_path: Path, home: Path) -> None:
    _land(home, tmp_path)
    mapped = write_policy(
        tmp_path / "mapped",
        BASE_POLICY
        | {
            "ownership": [
                *BASE_POLICY["ownership"],
                "slurm_account,scratch,atlas,,2026-01-01T00:00:00Z,",
            ]
        },
    )
    assert run_cli(home, mapped, "close", "--period", "2026-03").exit_code == 0
    before = sql(home, "select * from marts.fact_chargeback order by charge_line_id")

    # the rate card changes after the close: open periods would move, the closed one must not
    repriced = write_policy(
        tmp_path / "repriced",
        BASE_POLICY
        | {
            "ownership": [
                *BASE_POLICY["ownership"],
                "slurm_account,scratch,atlas,,2026-01-01T00:00:00Z,",
            ],
            "rate_card": ["r2,2026-01-01T00:00:00Z,,h100,allocated_gpu_hour,9.99,USD"],
        },
    )
    assert run_cli(home, repriced, "build").exit_code == 0
    assert sql(home, "select * from marts.fact_chargeback order by charge_line_id") == before
    # the provisional computation did move (450 GPU-hours x 9.99), the published rows did not
    assert sql(home, "select sum(amount) from intermediate.int_charge_lines") == [
        (Decimal("4495.50"),)
    ]
    assert sql(home, "select sum(amount) from marts.fact_chargeback") == [(Decimal("900.00"),)]
