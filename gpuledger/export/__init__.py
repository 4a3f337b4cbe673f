"""`gpuledger export`: a period's charge lines for finance tools.

- `--format focus`: CSV with the FOCUS 1.2 columns (the common exchange format; the mapping
  is gpuledger/export/focus.py), GPU detail in `x_` columns;
- `--format parquet`: the same columns in Parquet;
- `--format csv`: the ledger's own columns (the contract of marts.fact_chargeback).

By default the closed lines of a closed period; `--provisional` exports an open period's
provisional lines instead (x_LineStatus says so); `--tenant` keeps one tenant's lines. The
export adds up: its BilledCost (amount) total must equal the close's recorded total (the
tenant's or provisional lines' total where those are exported), to the cent.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from gpuledger.core.ledger.schema import mart_columns
from gpuledger.core.policy import load_policy
from gpuledger.core.serving import query_served
from gpuledger.export.focus import COLUMNS, Account, focus_rows
from gpuledger.export.source import ExportError, ExportSource, read_source
from gpuledger.export.write import write_csv, write_parquet

FORMATS = ("focus", "csv", "parquet")
__all__ = ["FORMATS", "ExportError", "ExportResult", "export_period"]


@dataclass(frozen=True)
class ExportResult:
    path: Path
    fmt: str
    lines: int
    rows: int
    total: Decimal
    expected: Decimal
    currency: str
    reference: str

    @property
    def adds_up(self) -> bool:
        return self.total == self.expected

    def summary(self) -> str:
        measure = "amount" if self.fmt == "csv" else "BilledCost"
        rows = "" if self.rows == self.lines else f" as {self.rows} FOCUS rows"
        sign = "=" if self.adds_up else "!="
        return (
            f"exported {self.lines} lines{rows} to {self.path}, {measure} total "
            f"{self.total:f} {self.currency} {sign} {self.reference} {self.expected:f}"
        )


def _expected(home: Path, source: ExportSource, tenant: str | None) -> tuple[Decimal, str]:
    """The total the export must match, and what it is: the close's recorded total, or the
    tenant's or the provisional lines' total in fact_chargeback."""
    state = source.state
    if not source.provisional and tenant is None:
        return state.total_amount, f"close {state.close_id} total"
    status = "provisional" if source.provisional else "closed"
    (row,) = query_served(
        home,
        "select coalesce(sum(amount), 0) as total from fact_chargeback "
        "where period = ? and status = ? and (? is null or tenant_id = ?)",
        [state.period, status, tenant, tenant],
    )
    what = f"close {state.close_id}" if status == "closed" else f"provisional {state.period}"
    return row["total"], f"{what} total" + (f" for tenant {tenant}" if tenant else "")


def export_period(
    home: Path,
    period: str,
    fmt: str,
    output: Path,
    tenant: str | None = None,
    provisional: bool = False,
) -> ExportResult:
    if output.is_dir() or not output.parent.is_dir():
        raise ExportError(f"--output {output}: not a file in an existing directory")
    source = read_source(home, period, tenant, provisional)
    if fmt == "csv":
        rows = source.lines
        write_csv(output, rows, mart_columns())
        total = sum((row["amount"] for row in rows), start=Decimal(0))
    else:
        account = Account.from_settings(load_policy(home / "policy").settings)
        rows = focus_rows(source, account)
        (write_csv if fmt == "focus" else write_parquet)(output, rows, COLUMNS)
        total = sum((row["BilledCost"] for row in rows), start=Decimal(0))
    expected, reference = _expected(home, source, tenant)
    currency = "/".join(sorted({str(line["currency"]) for line in source.lines}))
    return ExportResult(
        output, fmt, len(source.lines), len(rows), total, expected, currency, reference
    )
