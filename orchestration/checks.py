"""The reconciliation checks of DESIGN.md "Period close" as blocking asset checks.

One Dagster check per `check_name` that marts.fact_reconciliation reports, discovered from the
model's SQL in the dbt manifest (`'<name>' as check_name`), so a check added to the model
appears here on the next load. All run in one step (one query) and all are blocking: a check
fails when its row for the run's period has status `fail` and `is_blocking`, or when the
model reported no row for the period (no evidence, or a renamed check), and then
published_period does not run. Informational rows (`info`, `not_applicable`) pass with their
figures as metadata. The period is the monthly partition of the run. Built with the
Definitions, from the manifest as it is then.
"""

import json
import re
from collections.abc import Iterator

from dagster import (
    AssetCheckExecutionContext,
    AssetCheckResult,
    AssetChecksDefinition,
    AssetCheckSeverity,
    AssetCheckSpec,
    multi_asset_check,
)

from gpuledger.core.home import home_lock
from gpuledger.core.ledger import reconciliation
from orchestration.outcomes import FAILED, refusal
from orchestration.partitions import period_of
from orchestration.project import dbt_project
from orchestration.resources import GpuLedgerResource
from orchestration.warehouse_assets import RECONCILIATION

RECONCILIATION_MODEL = "model.gpuledger.fact_reconciliation"


def reconciliation_check_names() -> tuple[str, ...]:
    manifest = json.loads(dbt_project.manifest_path.read_text())
    sql = manifest["nodes"][RECONCILIATION_MODEL]["raw_code"]
    return tuple(sorted(set(re.findall(r"'([a-z0-9_]+)'\s+as\s+check_name", sql))))


def reconciliation_checks() -> AssetChecksDefinition:
    """One blocking check per check_name of the manifest as it is now."""
    names = reconciliation_check_names()

    @multi_asset_check(
        name="reconciliation_checks",
        specs=[
            AssetCheckSpec(
                name,
                asset=RECONCILIATION,
                blocking=True,
                description=f"fact_reconciliation check {name} for the period being closed",
            )
            for name in names
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
