"""Build, close and reopen as the CLI runs them.

`build` and `close_period` execute the Dagster jobs the UI launches (provisional_build,
monthly_close) in process (orchestration.runner): the close builds, runs the blocking
reconciliation checks of the period, then published_period appends the close to the
append-only ledger once the close gate (gpuledger.core.gate) lets it. A period already closed
is refused, also when two closes race (the home lock serializes them and the loser finds the
winner's close). `reopen_period` runs the reopen_period job, which records a reopen (the close
stays in the ledger); the period is provisional again until its next close, which records the
next close version. Each of them serves the marts to readers afterwards
(gpuledger.core.serving; `report` reads that copy) and is recorded as a run in the home's
Dagster instance, which the UI reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gpuledger.core.checks import CheckResult
from gpuledger.core.gate import evaluate_checks
from gpuledger.core.home import home_lock
from gpuledger.core.ledger import LedgerError
from gpuledger.core.warehouse import BuildError, BuildSummary, dbt_target, summarize
from orchestration.runner import (
    ALREADY_CLOSED,
    FAILED,
    PUBLISHED,
    run_build,
    run_close,
    run_reopen,
)

EXIT_PUBLISHED = 0
EXIT_BLOCKED = 3
EXIT_ALREADY_CLOSED = 4


@dataclass(frozen=True)
class CloseOutcome:
    exit_code: int
    period: str
    message: str
    checks: tuple[CheckResult, ...] = ()
    close_id: str | None = None


def build(home: Path, policy_dir: Path) -> BuildSummary:
    """`gpuledger build`: the Dagster provisional_build job in process."""
    run = run_build(home, policy_dir)
    if run.kind == FAILED:
        raise BuildError(run.message)
    return summarize(dbt_target(home))


def period_checks(home: Path, period: str) -> tuple[CheckResult, ...]:
    """The reconciliation rows of a period as the warehouse holds them now."""
    with home_lock(home):
        return evaluate_checks(home, period).checks


def close_period(home: Path, policy_dir: Path, period: str, approver: str) -> CloseOutcome:
    run = run_close(home, policy_dir, period, approver)
    if run.kind == ALREADY_CLOSED:
        return CloseOutcome(EXIT_ALREADY_CLOSED, period, run.message)
    if run.kind == FAILED:
        raise BuildError(run.message)
    with home_lock(home):
        decision = evaluate_checks(home, period)
    if run.kind == PUBLISHED:
        message = f"period {period} closed and published as {run.close_id}"
        return CloseOutcome(EXIT_PUBLISHED, period, message, decision.checks, run.close_id)
    if not decision.checks:
        return CloseOutcome(EXIT_BLOCKED, period, decision.message)
    failing = decision.failing or run.failed_checks
    return CloseOutcome(
        EXIT_BLOCKED,
        period,
        f"close of {period} BLOCKED by {len(failing)} failing check(s): {', '.join(failing)}; "
        "provisional showback is still available (gpuledger report)",
        decision.checks,
    )


def reopen_period(home: Path, period: str, reason: str, requested_by: str) -> str:
    """`gpuledger reopen`: the Dagster reopen_period job in process; returns what the CLI
    prints (LedgerError when refused)."""
    run = run_reopen(home, period, reason, requested_by)
    if run.kind == FAILED:
        raise LedgerError(run.message)
    return (
        f"period {period} reopened ({run.reopen_id}); close {run.close_id} stays in "
        f"the ledger as version {run.close_version}. The period is provisional until it "
        f"is closed again as version {run.close_version + 1}."
    )
