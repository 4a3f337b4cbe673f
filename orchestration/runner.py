"""The CLI's way into Dagster: `gpuledger build` and `gpuledger close` execute the very jobs
the UI launches (provisional_build, monthly_close), in process, against the CLI's --home and
--policy, and read back what happened.

The run is recorded in the Dagster instance at $DAGSTER_HOME when that is set (so CLI runs
show in the UI's run history), else in an ephemeral one. Dagster's console log is silenced,
and so is the dbt log dagster-dbt echoes to stdout (dbt keeps it in
<home>/dbt/target/dbt.log): the CLI prints its own summary.
"""

from __future__ import annotations

import io
import os
import warnings
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path

from dagster import (
    DagsterInstance,
    ExecuteInProcessResult,
)

from gpuledger.core.checks import registered_check_names
from orchestration.definitions import build_definitions
from orchestration.jobs import MONTHLY_CLOSE, PROVISIONAL_BUILD
from orchestration.outcomes import ALREADY_CLOSED, BLOCKED, FAILED, OUTCOME_KEY, STALE
from orchestration.partitions import MONTHLY, partition_of
from orchestration.resources import GpuLedgerResource
from orchestration.serving_assets import PUBLISHED_PERIOD

PUBLISHED = "published"
SUCCEEDED = "succeeded"
QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


@dataclass(frozen=True)
class RunOutcome:
    """published | succeeded | already_closed | blocked | failed, with what the CLI prints."""

    kind: str
    message: str
    failed_checks: tuple[str, ...] = ()
    close_id: str | None = None


def _instance() -> DagsterInstance:
    if os.environ.get("DAGSTER_HOME"):
        return DagsterInstance.get()
    return DagsterInstance.ephemeral()


def _execute(
    job_name: str,
    home: Path,
    policy: Path,
    partition_key: str | None = None,
    run_config: dict | None = None,
) -> ExecuteInProcessResult:
    definitions = build_definitions(GpuLedgerResource(home=str(home), policy=str(policy)))
    job = definitions.resolve_job_def(job_name)
    with warnings.catch_warnings(), redirect_stdout(io.StringIO()), _instance() as instance:
        warnings.simplefilter("ignore")
        return job.execute_in_process(
            run_config={**QUIET, **(run_config or {})},
            instance=instance,
            partition_key=partition_key,
            raise_on_error=False,
            tags={"gpuledger/launched_by": "cli"},
        )


def _refusals(result: ExecuteInProcessResult) -> list[tuple[str, str]]:
    """(kind, message) of every failed step: a refusal's own kind, else `failed`."""
    found = []
    for event in result.all_events:
        if not event.is_step_failure:
            continue
        data = event.step_failure_data
        user = data.user_failure_data
        if user is not None and OUTCOME_KEY in user.metadata:
            found.append((str(user.metadata[OUTCOME_KEY].value), user.description or ""))
        elif data.error is not None and data.error.cls_name != "DagsterAssetCheckFailedError":
            error = data.error
            while error.cause is not None:
                error = error.cause
            found.append((FAILED, f"step {event.step_key} failed: {error.message.strip()}"))
    return found


def _failed_reconciliation_checks(result: ExecuteInProcessResult) -> tuple[str, ...]:
    return tuple(
        sorted(
            e.check_name
            for e in result.get_asset_check_evaluations()
            if not e.passed and e.check_name in registered_check_names()
        )
    )


def _classify(result: ExecuteInProcessResult) -> RunOutcome:
    refusals = _refusals(result)
    for wanted in (ALREADY_CLOSED, STALE, FAILED):
        messages = [message for kind, message in refusals if kind == wanted]
        if messages:
            return RunOutcome(wanted, "\n".join(messages))
    failed_checks = _failed_reconciliation_checks(result)
    if failed_checks or any(kind == BLOCKED for kind, _ in refusals):
        blocked = "; ".join(m for k, m in refusals if k == BLOCKED)
        return RunOutcome(BLOCKED, blocked, failed_checks)
    for materialization in result.asset_materializations_for_node("published_period"):
        if materialization.asset_key != PUBLISHED_PERIOD:
            continue  # the served copy it refreshed
        close_id = str(materialization.metadata["close_id"].value)
        return RunOutcome(PUBLISHED, f"published as {close_id}", close_id=close_id)
    if not result.success:
        return RunOutcome(FAILED, f"run {result.run_id} failed")
    return RunOutcome(SUCCEEDED, "")


def _run(
    job_name: str,
    home: Path,
    policy: Path,
    partition_key: str | None = None,
    run_config: dict | None = None,
) -> RunOutcome:
    """Run the job; once more if the dbt project changed while its definitions were built."""
    outcome = _classify(_execute(job_name, home, policy, partition_key, run_config))
    if outcome.kind == STALE:
        outcome = _classify(_execute(job_name, home, policy, partition_key, run_config))
    if outcome.kind == STALE:
        return RunOutcome(FAILED, outcome.message)
    return outcome


def run_build(home: Path, policy: Path) -> RunOutcome:
    return _run(PROVISIONAL_BUILD, home, policy)


def run_close(home: Path, policy: Path, period: str, approver: str) -> RunOutcome:
    key = partition_of(period)
    if not MONTHLY.has_partition_key(key):
        return RunOutcome(FAILED, f"period {period} has not started yet; it cannot be closed")
    config = {"ops": {"published_period": {"config": {"approver": approver}}}}
    return _run(MONTHLY_CLOSE, home, policy, key, config)
