"""What the CLI (and the demo) print: tables, a landing, a close."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from extractors.landing import LandingReport
from gpuledger.runs import CloseOutcome

QUARANTINE_LINES_SHOWN = 20


@dataclass(frozen=True)
class Unpriced:
    """A figure without the lines no rate priced: `known` (None: nothing is known)."""

    known: Decimal | None = None

    def render(self, figure: Callable[[Decimal], str]) -> str:
        return "unpriced" if self.known is None else f"{figure(self.known)} + unpriced"

    def __str__(self) -> str:
        return self.render(str)


def cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, Unpriced):
        return value.render(cell)
    if isinstance(value, Decimal):
        scale = 2 if value.as_tuple().exponent == -2 else 3
        return f"{value:,.{scale}f}"
    return str(value)


def exact_cell(value: object) -> str:
    """A value at its full scale (explain's evidence, which must add up to the cent)."""
    if value is None:
        return "-"
    if isinstance(value, Decimal):
        return f"{value:,f}"
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    return str(value)


def table_text(
    rows: Sequence[dict[str, object]],
    columns: Sequence[tuple[str, str]],
    format_cell: Callable[[object], str] = cell,
) -> str:
    grid = [[label for _, label in columns]] + [
        [format_cell(r[k]) for k, _ in columns] for r in rows
    ]
    widths = [max(len(line[i]) for line in grid) for i in range(len(columns))]
    numeric = [
        all(isinstance(r[k], int | float | Decimal | Unpriced) or r[k] is None for r in rows)
        for k, _ in columns
    ]

    def render(line: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if num else c.ljust(w)
            for c, w, num in zip(line, widths, numeric, strict=True)
        ).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([render(grid[0]), rule, *(render(line) for line in grid[1:])])


def landing_lines(report: LandingReport) -> list[str]:
    """A landing's summary, its warnings and its first quarantined records (file:line,
    field, reason)."""
    lines = [report.summary(), *(f"  warning: {warning}" for warning in report.warnings)]
    for rejected in report.rejected[:QUARANTINE_LINES_SHOWN]:
        where = f"{report.file}:{rejected.line}"
        lines.append(f"  quarantined {where}: field {rejected.field}: {rejected.reason}")
    hidden = len(report.rejected) - QUARANTINE_LINES_SHOWN
    if hidden > 0:
        lines.append(f"  ... and {hidden} more (all kept in quarantine)")
    return lines


def check_lines(outcome: CloseOutcome) -> list[str]:
    """The reconciliation checks of a period, each blocking failure with its detail."""
    if not outcome.checks:
        return []
    lines = [f"reconciliation checks for {outcome.period}:"]
    for check in outcome.checks:
        marker = "BLOCKS" if check.blocks else ""
        limit = "" if check.limit_value is None else f" (limit {check.limit_value})"
        observed = "-" if check.observed_value is None else str(check.observed_value)
        lines.append(
            f"  {check.status.upper():<15} {check.check_name:<38} {observed} {check.unit}"
            f"{limit} {marker}".rstrip()
        )
        if check.blocks:
            lines.append(f"      {check.detail}")
    return lines


def close_lines(outcome: CloseOutcome) -> list[str]:
    """The reconciliation checks of a close and its outcome."""
    return [*check_lines(outcome), outcome.message]
