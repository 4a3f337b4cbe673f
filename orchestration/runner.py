"""The CLI's way into Dagster: `gpuledger build`, `close` and `reopen` execute the very jobs
the UI launches (provisional_build, monthly_close, reopen_period), in process, against the
CLI's --home and --policy, and read back what happened.

Each run is recorded in the home's Dagster instance (orchestration.instance: `<home>/dagster`,
or $DAGSTER_HOME when set), the one `make ui` reads: the UI's run history shows the CLI's runs
(tagged gpuledger/launched_by=cli) with their materializations and check results. Dagster's
console log is silenced, and so is the dbt log dagster-dbt echoes to stdout (dbt keeps it in
<home>/dbt/target/dbt.log): the CLI prints its own summary.
"""

from __future__ import annotations

import io
import warnings
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path

from dagster import ExecuteInProcessResult

from gpuledger.core.checks import registered_check_names
from orchestration.definitions import build_definitions
from orchestration.instance import home_instance
from orchestration.jobs import MONTHLY_CLOSE, PROVISIONAL_BUILD
from orchestration.outcomes import ALREADY_CLOSED, BLOCKED, FAILED, OUTCOME_KEY, STALE
from orchestration.partitions import MONTHLY, partition_of
from orchestration.reopen import REOPEN_PERIOD
from orchestration.resources import GpuLedgerResource
from orchestration.serving_assets import PUBLISHED_PERIOD

PUBLISHED = "published"
REOPENED = "reopened"
SUCCEEDED = "succeeded"
QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


@dataclass(frozen=True)
class RunOutcome:
    """published | reopened | succeeded | already_closed | blocked | failed, with what the CLI
    prints; a close's id, and a reopen's id and the close version it reopened."""

    kind: str
    message: str
    failed_checks: tuple[str, ...] = ()
    close_id: str | None = None
    reopen_id: str | None = None
    close_version: int | None = None


def _execute(
    job_name: str,
    home: Path,
    policy: Path | None,
    partition_key: str | None = None,
    run_config: dict | None = None,
) -> ExecuteInProcessResult:
    resource = GpuLedgerResource(home=str(home), policy=None if policy is None else str(policy))
    job = build_definitions(resource).resolve_job_def(job_name)
    with warnings.catch_warnings(), redirect_stdout(io.StringIO()), home_instance(home) as instance:
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
    for observation in result.asset_observations_for_node("reopen_close"):
        metadata = {name: value.value for name, value in observation.metadata.items()}
        return RunOutcome(
            REOPENED,
            f"reopened as {metadata['reopen_id']}",
            close_id=str(metadata["close_id"]),
            reopen_id=str(metadata["reopen_id"]),
            close_version=int(metadata["close_version"]),
        )
    if not result.success:
        return RunOutcome(FAILED, f"run {result.run_id} failed")
    return RunOutcome(SUCCEEDED, "")


def _run(
    job_name: str,
    home: Path,
    policy: Path | None,
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


def run_reopen(home: Path, period: str, reason: str, requested_by: str) -> RunOutcome:
    key = partition_of(period)
    if not MONTHLY.has_partition_key(key):
        return RunOutcome(FAILED, f"period {period} is not closed; there is nothing to reopen")
    config = {"ops": {"reopen_close": {"config": {"reason": reason, "requested_by": requested_by}}}}
    return _run(REOPEN_PERIOD, home, None, key, config)
