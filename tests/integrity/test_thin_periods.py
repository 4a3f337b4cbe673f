"""Periods that hold no allocation of their own still close (issue: "a period with only
corrections, or only reservations, can close"): April holds only a Correction of a closed March,
or only a tenant's reservation, while the scheduler's evidence covers it."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

from tests.conftest import Job, run_cli, sql, write_inventory, write_policy, write_sacct

MARCH = dt.datetime(2026, 3, 1)
# sacct was run on 3 May: its output covers March and April (the extraction instant)
EXTRACTED_AT = "2026-05-03T00:00:00Z"


def _policy(tmp: Path, reservations: list[str]) -> Path:
    return write_policy(
        tmp / "policy",
        {
            "tenants": ["atlas,Team Atlas,research,cc-1"],
            "ownership": ["slurm_account,atlas,atlas,,2026-01-01T00:00:00Z,"],
            "reservations": reservations,
            "rate_card": [
                "r1,2026-01-01T00:00:00Z,,h100,reserved_gpu_hour,1.50,USD",
                "r1,2026-01-01T00:00:00Z,,h100,borrowed_gpu_hour,3.00,USD",
            ],
            "settings": ["charging_model,quota_burst", "currency,USD"],
        },
    )


def _ok(home: Path, policy: Path, *args: str) -> str:
    result = run_cli(home, policy, *args)
    assert result.exit_code == 0, (args, result.stdout, result.stderr)
    return result.stdout


def _lines(home: Path, period: str) -> list[tuple]:
    return sql(
        home,
        "select charge_component, charge_class, quantity, amount, corrects_period "
        "from marts.fact_chargeback where period = ? order by charge_component",
        [period],
    )


def test_period_with_only_corrections_closes(tmp_path: Path, home: Path) -> None:
    """March (one 4-GPU job of 100 h, 400 GPU-hours borrowed at 3.00; sacct run on 3 April)
    closes; a March job of
    40 GPU-hours lands late, extracted on 3 May. April ran nothing: its only line is the
    Correction of March (+40 GPU-hours, +120.00), and it closes."""
    policy = _policy(tmp_path, [])
    inventory = write_inventory(tmp_path / "inventory.csv", {"node-a": 8})
    march = [Job("1", "atlas", MARCH, MARCH + dt.timedelta(hours=100), 4, "node-a")]
    late = [Job("2", "atlas", dt.datetime(2026, 3, 20), dt.datetime(2026, 3, 20, 10), 4, "node-a")]
    _ok(home, policy, "ingest", "inventory", "--file", str(inventory))
    _ok(
        home,
        policy,
        *("ingest", "slurm", "--file", str(write_sacct(tmp_path / "m.txt", march))),
        *("--extracted-at", "2026-04-03T00:00:00Z"),
    )
    _ok(home, policy, "close", "--period", "2026-03", "--approver", "finance")
    _ok(
        home,
        policy,
        *("ingest", "slurm", "--file", str(write_sacct(tmp_path / "late.txt", late))),
        *("--extracted-at", EXTRACTED_AT),
    )

    printed = _ok(home, policy, "close", "--period", "2026-04", "--approver", "finance")

    assert "closed and published" in printed
    assert _lines(home, "2026-04") == [
        ("burst_usage", "Correction", Decimal("40.000000"), Decimal("120.00"), "2026-03"),
    ]


def test_period_with_only_a_reservation_closes(tmp_path: Path, home: Path) -> None:
    """Atlas reserves 2 H100s from March on. Its one job runs in March; sacct, run on 3 May,
    covers April, in which nothing ran: April is a period holding the reservation alone
    (2 GPUs x 720 h = 1,440 GPU-hours at 1.50 = 2,160.00), and it closes."""
    policy = _policy(tmp_path, ["atlas,h100,2,research,2026-03-01T00:00:00Z,"])
    inventory = write_inventory(tmp_path / "inventory.csv", {"node-a": 8})
    march = [Job("1", "atlas", MARCH, MARCH + dt.timedelta(hours=100), 4, "node-a")]
    _ok(home, policy, "ingest", "inventory", "--file", str(inventory))
    _ok(
        home,
        policy,
        *("ingest", "slurm", "--file", str(write_sacct(tmp_path / "m.txt", march))),
        *("--extracted-at", EXTRACTED_AT),
    )

    printed = _ok(home, policy, "close", "--period", "2026-04", "--approver", "finance")

    assert "closed and published" in printed
    assert _lines(home, "2026-04") == [
        ("guaranteed_capacity", None, Decimal("1440.000000"), Decimal("2160.00"), None),
    ]
