"""The reconciliation checks of a period's close as blocking asset checks.

One Dagster check per check registered in dbt_project.yml (vars.reconciliation_checks, read by
gpuledger.core.checks: the list dbt compiles marts.fact_reconciliation from), all run in one
step (one query) and all blocking: the close gate (gpuledger.core.gate) says whether each
passed — its row for the run's period has no blocking failure, and a registered check the
warehouse reported no row for fails — and a failing one stops published_period. Informational
rows (`info`, `not_applicable`) pass with their figures as metadata. The period is the monthly
partition of the run.
"""

from collections.abc import Iterator

from dagster import (
    AssetCheckExecutionContext,
    AssetCheckResult,
    AssetChecksDefinition,
    AssetCheckSeverity,
    AssetCheckSpec,
    multi_asset_check,
)

from extractors import crashpoints
from gpuledger.core.checks import registered_checks
from gpuledger.core.gate import CheckOutcome, evaluate_checks
from gpuledger.core.home import home_lock
from gpuledger.core.warehouse import WarehouseLocked
from orchestration.outcomes import FAILED, refusal, refused_on
from orchestration.partitions import period_of
from orchestration.resources import GpuLedgerResource
from orchestration.warehouse_assets import RECONCILIATION


def _metadata(period: str, outcome: CheckOutcome) -> dict:
    row = outcome.row
    if row is None:
        return {"period": period}
    return {
        "period": period,
        "status": row.status,
        "blocking": row.is_blocking,
        "observed": None if row.observed_value is None else float(row.observed_value),
        "limit": None if row.limit_value is None else float(row.limit_value),
        "unit": row.unit,
        "detail": row.detail,
    }


def reconciliation_checks() -> AssetChecksDefinition:
    """One blocking check per registered reconciliation check."""
    checks = registered_checks()
    names = tuple(check.name for check in checks)

    @multi_asset_check(
        name="reconciliation_checks",
        specs=[
            AssetCheckSpec(
                check.name, asset=RECONCILIATION, blocking=True, description=check.description
            )
            for check in checks
        ],
    )
    def reconciliation_checks(
        context: AssetCheckExecutionContext, gpuledger: GpuLedgerResource
    ) -> Iterator[AssetCheckResult]:
        if not context.op_execution_context.has_partition_key:
            raise refusal(FAILED, "the reconciliation checks need a period: run monthly_close")
        period = period_of(context.op_execution_context.partition_key)
        home = gpuledger.home_path()
        with home_lock(home), refused_on(WarehouseLocked):
            decision = evaluate_checks(home, period)
            crashpoints.reached("close:checks")
        outcomes = {o.check_name: o for o in decision.outcomes}
        for name in names:
            outcome = outcomes.get(name)
            yield AssetCheckResult(
                check_name=name,
                asset_key=RECONCILIATION,
                passed=outcome is not None and outcome.passed,
                severity=AssetCheckSeverity.ERROR,
                description=(
                    outcome.description if outcome else f"{decision.message} ({name} not run)"
                ),
                metadata=_metadata(period, outcome) if outcome else {"period": period},
            )

    return reconciliation_checks
