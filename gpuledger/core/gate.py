"""The close gate: the one rule that says whether a period may be published.

A period may be published when it is not closed now (marts.dim_period) and every registered
reconciliation check (gpuledger.core.checks) reported a row for it with no blocking failure;
a close the ledger holds whose publication stopped half-way is `unfinished`, to be finished.
Every caller asks here: the dbt build of a monthly close (refuses a closed period before it
starts), the Dagster reconciliation checks (one result per registered check),
published_period (decides under the home lock, right before it appends), and the CLI (what it
prints).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gpuledger.core.checks import CheckResult, reconciliation, registered_check_names
from gpuledger.core.ledger import Close, current_close, publication_finished

OPEN = "open"
ALREADY_CLOSED = "already_closed"
UNFINISHED = "unfinished"
BLOCKED = "blocked"
READY = "ready"


@dataclass(frozen=True)
class CheckOutcome:
    """One registered check of a period: its row (None when the warehouse reported none)."""

    check_name: str
    row: CheckResult | None

    @property
    def passed(self) -> bool:
        return self.row is not None and not self.row.blocks

    @property
    def description(self) -> str:
        if self.row is None:
            return f"fact_reconciliation has no {self.check_name} row"
        return f"{self.row.status}: {self.row.detail}"


@dataclass(frozen=True)
class GateDecision:
    period: str
    # open (checks not evaluated) | already_closed | unfinished | blocked | ready
    kind: str
    message: str
    close: Close | None = None
    checks: tuple[CheckResult, ...] = ()
    outcomes: tuple[CheckOutcome, ...] = ()

    @property
    def failing(self) -> tuple[str, ...]:
        return tuple(o.check_name for o in self.outcomes if not o.passed)


def already_closed_message(period: str, close: Close) -> str:
    return (
        f"period {period} is already closed (close {close.close_id} at {close.closed_at} by "
        f"{close.approver}); a closed period is never rewritten. Late data for it becomes "
        "adjustments in the next open period."
    )


def evaluate_checks(home: Path, period: str) -> GateDecision:
    """The period's registered checks as the warehouse reports them now."""
    rows = reconciliation(home, period)
    if not rows:
        return GateDecision(period, BLOCKED, f"period {period} has no evidence or policy to close")
    by_name = {row.check_name: row for row in rows}
    outcomes = tuple(CheckOutcome(name, by_name.get(name)) for name in registered_check_names())
    failing = [o.check_name for o in outcomes if not o.passed]
    if failing:
        message = f"close of {period} blocked by {len(failing)} check(s): {', '.join(failing)}"
        return GateDecision(period, BLOCKED, message, checks=rows, outcomes=outcomes)
    return GateDecision(period, READY, f"{period} may be published", checks=rows, outcomes=outcomes)


def close_gate(home: Path, period: str, *, evaluate: bool = True) -> GateDecision:
    """Whether `period` may be published now; with evaluate=False only whether it is closed.

    `unfinished`: the ledger holds the period's close but its publication stopped before the
    end (a crash between the ledger write and the evidence files): the next close finishes it.
    """
    close = current_close(home, period)
    if close is not None and not publication_finished(home, close):
        message = (
            f"close {close.close_id} of {period} is in the ledger but its publication did not "
            "finish; closing the period again finishes it"
        )
        return GateDecision(period, UNFINISHED, message, close)
    if close is not None:
        return GateDecision(period, ALREADY_CLOSED, already_closed_message(period, close), close)
    if not evaluate:
        return GateDecision(period, OPEN, f"{period} is open")
    return evaluate_checks(home, period)
