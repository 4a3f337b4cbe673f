"""The FOCUS mapping on lines made by hand (gpuledger/export/focus.py): a reservation's
amortization adds up to its purchase whatever the rounding, tags name a project only when the
line has one, an unmapped component is an error, and a mismatched total says so."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest

from gpuledger.export import ExportResult
from gpuledger.export.focus import Account, focus_rows, month_bounds
from gpuledger.export.source import ExportSource, PeriodState

ACCOUNT = Account("acme-gpu", "ACME GPU chargeback", "ACME platform")
CLOSED = PeriodState("2026-10", "closed", "close-2026-10-v1-abc", Decimal("10.00"), "abc123")


def _line(**values: object) -> dict[str, object]:
    line = {
        "charge_line_id": "l1",
        "period": "2026-10",
        "tenant_id": "atlas",
        "tenant_name": "Atlas",
        "department": "research",
        "cost_center": "cc-1",
        "charge_component": "guaranteed_capacity",
        "gpu_class": "h100",
        "quantity": Decimal("3.000000"),
        "unit": "reserved_gpu_hour",
        "unit_price": Decimal("3.333333"),
        "amount": Decimal("10.00"),
        "currency": "USD",
        "rate_card_version": "r1",
        "confidence": "policy",
        "charge_class": None,
        "description": "reserved GPU-hours x committed rate, used or not",
        "corrects_period": None,
        "corrects_close_id": None,
        "status": "closed",
        "close_id": "close-2026-10-v1-abc",
        "sharing_modes": None,
        "projects": None,
    }
    return line | values


def _rows(line: dict[str, object], share: Decimal) -> list[dict[str, object]]:
    source = ExportSource(CLOSED, [line], {("2026-10", "atlas", "h100"): share})
    return focus_rows(source, ACCOUNT)


def test_a_reservation_used_a_third_amortizes_to_its_purchase_to_the_cent() -> None:
    purchase, used, unused = _rows(_line(), Decimal(1) / Decimal(3))
    assert (purchase["ChargeCategory"], purchase["BilledCost"], purchase["EffectiveCost"]) == (
        "Purchase",
        Decimal("10.00"),
        Decimal("0.00"),
    )
    assert (used["CommitmentDiscountStatus"], used["EffectiveCost"]) == ("Used", Decimal("3.33"))
    assert (unused["CommitmentDiscountStatus"], unused["EffectiveCost"]) == (
        "Unused",
        Decimal("6.67"),
    )
    assert used["CommitmentDiscountQuantity"] + unused["CommitmentDiscountQuantity"] == Decimal(3)
    assert used["ConsumedQuantity"] == Decimal("1.000000") and unused["ConsumedQuantity"] is None
    assert purchase["CommitmentDiscountId"] == "acme-gpu/reservation/atlas/h100"
    assert purchase["ResourceId"] == unused["ResourceId"] == purchase["CommitmentDiscountId"]
    assert used["ResourceId"] is None
    assert {row["ProviderName"] for row in (purchase, used, unused)} == {"ACME platform"}


@pytest.mark.parametrize(
    ("share", "statuses"), [(Decimal(1), [None, "Used"]), (Decimal(0), [None, "Unused"])]
)
def test_a_part_of_no_gpu_hours_is_left_out(share: Decimal, statuses: list[str | None]) -> None:
    assert [row["CommitmentDiscountStatus"] for row in _rows(_line(), share)] == statuses


def test_tags_name_a_project_only_when_the_line_has_one() -> None:
    one = _rows(
        _line(charge_component="burst_usage", unit="borrowed_gpu_hour", projects="p1"), Decimal(0)
    )
    two = _rows(
        _line(charge_component="burst_usage", unit="borrowed_gpu_hour", projects="p1,p2"),
        Decimal(0),
    )
    none = _rows(
        _line(charge_component="credit", unit="adjustment", department=None, cost_center=None),
        Decimal(0),
    )
    assert one[0]["Tags"] == '{"cost_center": "cc-1", "department": "research", "project": "p1"}'
    assert two[0]["Tags"] == '{"cost_center": "cc-1", "department": "research"}'
    assert two[0]["x_Projects"] == "p1,p2"
    assert none[0]["Tags"] is None


def test_an_unmapped_component_is_an_error_naming_it() -> None:
    with pytest.raises(LookupError, match="charge component 'tax' has no FOCUS mapping"):
        _rows(_line(charge_component="tax"), Decimal(0))


def test_a_priced_component_needs_a_gpu_hour_unit() -> None:
    with pytest.raises(LookupError, match="unit 'token' of a priced component 'burst_usage'"):
        _rows(_line(charge_component="burst_usage", unit="token"), Decimal(0))


def test_month_bounds_cross_the_year() -> None:
    assert month_bounds("2026-12") == (
        dt.datetime(2026, 12, 1, tzinfo=dt.UTC),
        dt.datetime(2027, 1, 1, tzinfo=dt.UTC),
    )


def test_a_total_that_does_not_match_says_so() -> None:
    result = ExportResult(
        Path("out.csv"), "focus", 2, 3, Decimal("9.99"), Decimal("10.00"), "USD", "close c total"
    )
    assert not result.adds_up
    assert result.summary() == (
        "exported 2 lines as 3 FOCUS rows to out.csv, BilledCost total 9.99 USD != close c total "
        "10.00"
    )
