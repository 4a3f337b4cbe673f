"""Close a period, and reopen one: the CLI side of the ledger.

`close_period` runs the Dagster monthly_close job for the period in process
(orchestration/runner.py), the same job the UI launches: the build, the blocking
reconciliation checks of the period, then published_period, which appends the close to the
append-only ledger (gpuledger/core/ledger.py). It publishes only when every blocking check passes;
a period already closed is refused, also when two closes race (the home lock serializes them
and the loser finds the winner's close). `fact_chargeback` then serves the closed period from
the ledger, so a later build can never rewrite it.

`reopen_period` records a reopen (the close stays in the ledger); the period is provisional
again until the next close, which records the next close version.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gpuledger.core.home import home_lock
from gpuledger.core.ledger import CheckResult, reconciliation, reopen
from gpuledger.core.warehouse import BuildError, run_dbt

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


def _checks(home: Path, period: str) -> tuple[CheckResult, ...]:
    with home_lock(home):
        return reconciliation(home, period)


def close_period(home: Path, policy_dir: Path, period: str, approver: str) -> CloseOutcome:
    from orchestration.runner import ALREADY_CLOSED, FAILED, PUBLISHED, run_close

    run = run_close(home, policy_dir, period, approver)
    if run.kind == ALREADY_CLOSED:
        return CloseOutcome(EXIT_ALREADY_CLOSED, period, run.message)
    if run.kind == FAILED:
        raise BuildError(run.message)
    checks = _checks(home, period)
    if run.kind == PUBLISHED:
        return CloseOutcome(
            EXIT_PUBLISHED,
            period,
            f"period {period} closed and published as {run.close_id}",
            checks,
            run.close_id,
        )
    if not checks:
        return CloseOutcome(
            EXIT_BLOCKED, period, f"period {period} has no evidence or policy to close"
        )
    failing = [c.check_name for c in checks if c.blocks] or list(run.failed_checks)
    return CloseOutcome(
        EXIT_BLOCKED,
        period,
        f"close of {period} BLOCKED by {len(failing)} failing check(s): {', '.join(failing)}; "
        "provisional showback is still available (gpuledger report)",
        checks,
    )


def reopen_period(home: Path, period: str, reason: str, requested_by: str) -> str:
    """Reopen the period's close; returns what the CLI prints (LedgerError when refused)."""
    with home_lock(home):
        reopened = reopen(home, period, reason, requested_by)
        run_dbt(home, ["run", "--select", "fact_chargeback+"])
    return (
        f"period {period} reopened ({reopened.reopen_id}); close {reopened.close_id} stays in "
        f"the ledger as version {reopened.close_version}. The period is provisional until it "
        f"is closed again as version {reopened.close_version + 1}."
    )
