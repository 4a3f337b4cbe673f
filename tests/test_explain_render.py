"""The pure rendering of `gpuledger explain`: a line, its evidence, and whether it adds up."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from gpuledger.explain import render_line, render_lines

LINE = {
    "charge_line_id": "l1",
    "period": "2026-10",
    "tenant_id": "atlas",
    "charge_component": "burst_usage",
    "gpu_class": "h100",
    "charge_class": None,
    "corrects_period": None,
    "corrects_close_id": None,
    "quantity": Decimal("1.500000"),
    "unit": "borrowed_gpu_hour",
    "unit_price": Decimal("3.200000"),
    "amount": Decimal("4.80"),
    "currency": "USD",
    "rate_card_version": "2026.10",
    "confidence": "high",
    "status": "closed",
    "close_id": "close-2026-10-v1-abc",
    "description": "borrowed GPU-hours (above the reservation) x burst rate",
    "evidence_count": 2,
}


def _segment(number: int, quantity: str, amount: str, reproduced: bool = True) -> dict:
    return {
        "evidence_kind": "segment",
        "scope_type": "slurm_account",
        "scope_key": "atlas-train",
        "endpoint_id": None,
        "workload_id": f"slurm:demo:{number}",
        "gpu_uuid": None,
        "node_name": "hgx-h100-01",
        "started_at": dt.datetime(2026, 10, number, 0, 0),
        "ended_at": dt.datetime(2026, 10, number, 6, 0),
        "capacity_fraction": Decimal("1.000000"),
        "gpu_hours": Decimal("48.000000"),
        "guaranteed_gpu_hours": Decimal("47.250000"),
        "borrowed_gpu_hours": Decimal(quantity),
        "unit_price": Decimal("3.200000"),
        "quantity": Decimal(quantity),
        "amount": Decimal(amount),
        "source_batch_id": "b1",
        "source_file": "/in/sacct.txt",
        "source_line": 10 + number,
        "policy_source": None,
        "related_charge_line_id": None,
        "is_line_reproduced": reproduced,
    }


def test_a_line_whose_evidence_adds_up() -> None:
    text = render_line(LINE, [_segment(1, "0.750000", "2.40"), _segment(2, "0.750000", "2.40")])
    lines = text.splitlines()
    assert lines[0] == "Charge line l1"
    assert "  status       closed, published by close-2026-10-v1-abc" in lines
    assert "Evidence (2 pieces)" in lines
    first = next(line for line in lines if "slurm:demo:1" in line).split()
    assert first[:4] == ["segment", "slurm_account:atlas-train", "slurm:demo:1", "hgx-h100-01"]
    assert first[-4:] == ["0.750000", "2.40", "b1", "/in/sacct.txt:11"]
    assert lines[-1] == (
        "evidence adds up to the line: quantity 1.500000 borrowed_gpu_hour and "
        "amount 4.80 USD, exactly"
    )


def test_a_closed_line_its_recomputation_no_longer_reproduces_shows_the_difference() -> None:
    evidence = [_segment(1, "0.750000", "2.40", False), _segment(2, "1.000000", "3.20", False)]
    lines = render_line(LINE, evidence).splitlines()
    assert any("no longer gives the published line" in line for line in lines)
    assert lines[-1] == (
        "evidence does NOT add up to the line: quantity 1.750000 borrowed_gpu_hour against "
        "1.500000 (difference 0.250000), amount 5.60 USD against 4.80 (difference 0.80)"
    )


def test_a_line_without_evidence_says_so() -> None:
    lines = render_line(LINE, []).splitlines()
    assert "no evidence: the recomputation no longer produces this line" in lines
    assert lines[-1].endswith(
        "(difference -1.500000), amount 0.00 USD against 4.80 (difference -4.80)"
    )


def test_the_tenants_lines_with_their_evidence_counts() -> None:
    text = render_lines("2026-10", "atlas", [LINE])
    header, rule, row = text.splitlines()[1:]
    assert header.split()[:3] == ["line", "component", "class"]
    assert row.split() == [
        "l1", "burst_usage", "h100", "1.500000", "borrowed_gpu_hour", "3.200000", "4.80",
        "2026.10", "closed", "2",
    ]  # fmt: skip
    assert set(rule) == {"-", " "}
