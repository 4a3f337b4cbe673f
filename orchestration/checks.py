"""The reconciliation checks of DESIGN.md "Period close" as blocking asset checks.

One Dagster check per check registered in dbt_project.yml (vars.reconciliation_checks, read
by gpuledger.core.checks), the list dbt compiles marts.fact_reconciliation from, so a check
registered there appears here on the next load. All run in one step (one query) and all are
blocking: a check fails when its row for the run's period has status `fail` and
`is_blocking`, or when the model reported no row for the period (no evidence, or a renamed
check), and then published_period does not run. Informational rows (`info`,
`not_applicable`) pass with their figures as metadata. The period is the monthly partition
of the run. Built with the Definitions, from the registry as it is then.
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

from gpuledger.core.checks import registered_checks
from gpuledger.core.home import home_lock
from gpuledger.core.ledger import reconciliation
from orchestration.outcomes import FAILED, refusal
from orchestration.partitions import period_of
from orchestration.resources import GpuLedgerResource
from orchestration.warehouse_assets import RECONCILIATION


def reconciliation_check_names() -> tuple[str, ...]:
    return tuple(check.name for check in registered_checks())


def reconciliation_checks() -> AssetChecksDefinition:
    """One blocking check per registered reconciliation check."""
    checks = registered_checks()
    names = tuple(check.name for check in checks)

    @multi_asset_check(
        name="reconciliation_checks",
        specs=[
            AssetCheckSpec(
                check.name,
                asset=RECONCILIATION,
                blocking=True,
                description=check.description,
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
        with home_lock(home):
            rows = {row.check_name: row for row in reconciliation(home, period)}
        for name in names:
            row = rows.get(name)
            if row is None:
                yield AssetCheckResult(
                    check_name=name,
                    asset_key=RECONCILIATION,
                    passed=False,
                    severity=AssetCheckSeverity.ERROR,
                    description=f"fact_reconciliation has no {name} row for {period}",
                    metadata={"period": period},
                )
                continue
            yield AssetCheckResult(
                check_name=name,
                asset_key=RECONCILIATION,
                passed=not row.blocks,
                severity=AssetCheckSeverity.ERROR,
                description=f"{row.status}: {row.detail}",
                metadata={
                    "period": period,
                    "status": row.status,
                    "blocking": row.is_blocking,
                    "observed": None if row.observed_value is None else float(row.observed_value),
                    "limit": None if row.limit_value is None else float(row.limit_value),
                    "unit": row.unit,
                    "detail": row.detail,
                },
            )

    return reconciliation_checks
