"""`gpuledger export`: the FinOps Foundation's focus-validator passes the FOCUS exports of the
demo's closed October and of an April that corrects March; their BilledCost adds up to the
close to the cent; Parquet holds the same rows, `--format csv` the ledger's lines; `--tenant`
and `--provisional` select what they say, and an open period needs `--provisional`.

FOCUS 1.2 requirements the 1.0 validator does not know: tests/e2e/test_focus_requirements.py.
"""

from __future__ import annotations

import csv
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from gpuledger.core.ledger.schema import mart_columns
from gpuledger.core.serving import query_served
from gpuledger.export.focus import COLUMNS, DECIMAL_COLUMNS
from gpuledger.export.write import text
from tests.conftest import run_cli
from tests.e2e.focus import OVERRIDES, Export, export, read_focus_csv, run_validator

CLOSE_TOTALS = {"october": Decimal("250250.00"), "april": Decimal("2330.00")}


@pytest.fixture(params=["october", "april"])
def focus_export(request: pytest.FixtureRequest, focus_exports: dict[str, Export]) -> Export:
    return focus_exports[request.param]


def _close(home: Path, period: str) -> dict[str, object]:
    (row,) = query_served(home, "select * from dim_period where period = ?", [period])
    return row


def test_the_foundations_validator_finds_no_failed_check(
    focus_export: Export, tmp_path: Path
) -> None:
    validation = run_validator(focus_export.path, tmp_path / "validator.xml")
    print(validation.output)
    assert validation.returncode == 0, validation.output
    assert validation.counts["failures"] == 0 and validation.counts["errors"] == 0
    # skipped: only the checks overrides-1.0.yaml names (pre-1.0 column names, a 0.5 column)
    overridden = set(yaml.safe_load(OVERRIDES.read_text())["overrides"])
    assert {n for n, o in validation.outcomes.items() if o == "skipped"} == overridden
    assert validation.counts["tests"] == len(validation.outcomes) == 133
    assert "Validation succeeded." in validation.output


def test_the_validator_fails_a_broken_export(
    focus_exports: dict[str, Export], tmp_path: Path
) -> None:
    """The harness reads the validator's verdict: a ChargeClass outside its allowed values and a
    BilledCost with a decimal comma fail."""
    rows = focus_exports["october"].rows
    rows[0] |= {"ChargeClass": "Regular", "BilledCost": "12,5"}
    broken = tmp_path / "broken.csv"
    with broken.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    validation = run_validator(broken, tmp_path / "validator.xml")
    assert validation.returncode == 1
    assert validation.outcomes["ChargeClass_Enum"] == "failed"
    assert validation.outcomes["BilledCost_IsDecimal"] == "failed"
    assert "Validation failed!" in validation.output


def test_billed_cost_adds_up_to_the_close_to_the_cent(focus_export: Export) -> None:
    close = _close(focus_export.home, focus_export.period)
    billed = sum(Decimal(row["BilledCost"]) for row in focus_export.rows)
    assert billed == close["total_amount"] == CLOSE_TOTALS[focus_export.name]
    assert focus_export.printed.startswith(
        f"exported {close['line_count']} lines as {len(focus_export.rows)} FOCUS rows"
    )
    assert (
        f"BilledCost total {billed} USD = close {close['close_id']} total {billed}"
        in focus_export.printed
    )


def test_the_demo_close_id_is_the_export_invoice(focus_exports: dict[str, Export]) -> None:
    rows = focus_exports["october"].rows
    assert {row["InvoiceId"] for row in rows} == {"close-2026-10-v1-14c4f85eb6"}
    assert {row["x_CloseId"] for row in rows} == {"close-2026-10-v1-14c4f85eb6"}
    assert {row["x_LinesHash"][:10] for row in rows} == {"14c4f85eb6"}


def test_a_correction_names_the_period_and_close_it_corrects(
    focus_exports: dict[str, Export],
) -> None:
    april = focus_exports["april"]
    march = _close(april.home, "2026-03")["close_id"]
    (correction,) = [row for row in april.rows if row["ChargeClass"] == "Correction"]
    assert correction["x_CorrectedPeriod"] == "2026-03"
    assert correction["x_CorrectedCloseId"] == march
    assert f"correction of 2026-03 ({march})" in correction["ChargeDescription"]
    assert (correction["ChargePeriodStart"], correction["ChargePeriodEnd"]) == (
        "2026-03-01T00:00:00Z",
        "2026-04-01T00:00:00Z",
    )
    assert (correction["BillingPeriodStart"], correction["BillingPeriodEnd"]) == (
        "2026-04-01T00:00:00Z",
        "2026-05-01T00:00:00Z",
    )
    assert (correction["ChargeCategory"], correction["SkuPriceId"]) == (
        "Usage",
        "h100-gpu-hour-borrowed",
    )
    assert (Decimal(correction["PricingQuantity"]), Decimal(correction["BilledCost"])) == (
        Decimal(40),
        Decimal("120.00"),
    )


def test_a_reservation_is_a_purchase_amortized_by_used_and_unused_rows(
    focus_exports: dict[str, Export],
) -> None:
    """April: 2 reserved H100s x 720 h at 1.50 = 2160.00; 20 of the 1440 GPU-hours used."""
    rows = [r for r in focus_exports["april"].rows if r["CommitmentDiscountId"]]
    seen = {
        (r["ChargeCategory"], r["CommitmentDiscountStatus"]): (
            Decimal(r["CommitmentDiscountQuantity"]),
            Decimal(r["BilledCost"]),
            Decimal(r["EffectiveCost"]),
            r["ConsumedQuantity"],
            r["PricingCategory"],
        )
        for r in rows
    }
    assert seen == {
        ("Purchase", None): (Decimal(1440), Decimal("2160.00"), Decimal(0), None, "Standard"),
        ("Usage", "Used"): (Decimal(20), Decimal(0), Decimal("30.00"), "20.000000", "Committed"),
        ("Usage", "Unused"): (Decimal(1420), Decimal(0), Decimal("2130.00"), None, "Committed"),
    }
    assert {r["CommitmentDiscountId"] for r in rows} == {"research-cluster/reservation/atlas/h100"}
    (credit,) = [r for r in focus_exports["april"].rows if r["ChargeCategory"] == "Credit"]
    assert (credit["BilledCost"], credit["x_ChargeComponent"]) == ("-10.00", "credit")


def test_parquet_holds_the_focus_rows_typed(
    focus_exports: dict[str, Export], tmp_path: Path
) -> None:
    october = focus_exports["october"]
    path = tmp_path / "october.parquet"
    printed = export(october.home, "2026-10", "parquet", path)
    assert "BilledCost total 250250.00 USD = close close-2026-10-v1-14c4f85eb6" in printed
    table = pq.read_table(path)
    assert table.schema.names == list(COLUMNS)
    assert table.schema.field("BilledCost").type == pa.decimal128(38, 12)
    assert table.schema.field("BillingPeriodStart").type == pa.timestamp("ms", tz="UTC")
    assert [_as_csv(row) for row in table.to_pylist()] == [_as_csv(row) for row in october.rows]


def _as_csv(row: dict[str, object]) -> dict[str, object]:
    """A row's values as they compare across formats: decimals by value, the rest as text."""
    return {
        column: (Decimal(value) if value is not None else None)
        if column in DECIMAL_COLUMNS
        else (text(value) or None)
        for column, value in row.items()
    }


def test_csv_holds_the_ledgers_own_lines(focus_exports: dict[str, Export], tmp_path: Path) -> None:
    october = focus_exports["october"]
    path = tmp_path / "october-lines.csv"
    printed = export(october.home, "2026-10", "csv", path)
    assert "exported 30 lines to" in printed
    assert (
        "amount total 250250.00 USD = close close-2026-10-v1-14c4f85eb6 total 250250.00" in printed
    )
    lines = read_focus_csv(path)
    assert list(lines[0]) == list(mart_columns())
    served = query_served(
        october.home,
        "select * from fact_chargeback where period = '2026-10' order by charge_line_id",
    )
    assert sorted(lines, key=lambda r: r["charge_line_id"]) == [
        {k: text(v) or None for k, v in row.items()} for row in served
    ]


def test_tenant_keeps_one_tenants_lines(focus_exports: dict[str, Export], tmp_path: Path) -> None:
    october = focus_exports["october"]
    path = tmp_path / "atlas.csv"
    printed = export(october.home, "2026-10", "focus", path, "--tenant", "atlas")
    rows = read_focus_csv(path)
    assert {row["SubAccountId"] for row in rows} == {"atlas"}
    (expected,) = query_served(
        october.home,
        "select sum(amount) as total from fact_chargeback "
        "where period = '2026-10' and tenant_id = 'atlas'",
    )
    billed = sum(Decimal(row["BilledCost"]) for row in rows)
    assert billed == expected["total"]
    assert f"= close close-2026-10-v1-14c4f85eb6 total for tenant atlas {billed}" in printed


def test_an_open_period_exports_only_as_provisional(correction_home: Path, tmp_path: Path) -> None:
    path = tmp_path / "may.csv"
    refused = run_cli(correction_home, None, "export", "--period", "2026-05", "--format", "focus",
                      "--output", str(path))  # fmt: skip
    assert refused.exit_code == 1 and not path.exists()
    assert refused.stderr.strip().splitlines() == [
        "gpuledger: period 2026-05 is open, not closed: close it (`gpuledger close`) or export "
        "its provisional lines with --provisional"
    ]
    printed = export(correction_home, "2026-05", "focus", path, "--provisional")
    rows = read_focus_csv(path)
    assert {row["x_LineStatus"] for row in rows} == {"provisional"}
    assert {row["InvoiceId"] for row in rows} == {row["x_CloseId"] for row in rows} == {None}
    assert "BilledCost total 2232.00 USD = provisional 2026-05 total 2232.00" in printed

    closed = run_cli(correction_home, None, "export", "--period", "2026-04", "--format", "csv",
                     "--output", str(path), "--provisional")  # fmt: skip
    assert closed.exit_code == 1
    assert "period 2026-04 is closed (close-2026-04-v1-" in closed.stderr
    unknown = run_cli(correction_home, None, "export", "--period", "2025-01", "--format", "csv",
                      "--output", str(path))  # fmt: skip
    assert unknown.exit_code == 1 and "period 2025-01 is not in the warehouse" in unknown.stderr


def test_an_output_that_is_not_a_file_is_refused(correction_home: Path, tmp_path: Path) -> None:
    for output in (tmp_path, tmp_path / "missing" / "april.csv"):
        refused = run_cli(correction_home, None, "export", "--period", "2026-04", "--format",
                          "focus", "--output", str(output))  # fmt: skip
        assert refused.exit_code == 1
        assert refused.stderr == (
            f"gpuledger: --output {output}: not a file in an existing directory\n"
        )
