"""reopen_period: the reopen of a closed month as a run, so the UI shows it where it shows the
close (`gpuledger reopen` runs this job in process; the UI can launch it too).

One op, on the monthly partitions: under the home lock it records the reopen in the ledger
(gpuledger.core.ledger.reopen: the close stays, the period is provisional until its next
close version), refreshes the marts that serve closed periods, records the periods a build
keeps again (the period reopened is not one: gpuledger.core.period_scope) and serves the
marts again.
It reports an observation of published_period for the month with the reopen's figures, next
to the close's materialization in that asset's history, and a materialization of
serving/marts. A refused reopen (the period is not closed, corrections of it are published)
fails the run with the ledger's message.
"""

from dagster import AssetObservation, Config, OpExecutionContext, job, op

from gpuledger.core import period_scope
from gpuledger.core.home import home_lock
from gpuledger.core.ledger import LedgerError, refresh_ledger_marts, reopen
from gpuledger.core.warehouse import WarehouseLocked
from orchestration.outcomes import refused_on
from orchestration.partitions import MONTHLY, period_of
from orchestration.resources import GpuLedgerResource
from orchestration.serving_assets import PUBLISHED_PERIOD, served_materialization

REOPEN_PERIOD = "reopen_period"


class ReopenConfig(Config):
    reason: str
    requested_by: str = "dagster"


@op(description="Reopen the month's close; it stays in the ledger as its version.")
def reopen_close(
    context: OpExecutionContext, config: ReopenConfig, gpuledger: GpuLedgerResource
) -> None:
    period = period_of(context.partition_key)
    home = gpuledger.home_path()
    with home_lock(home), refused_on(LedgerError, WarehouseLocked):
        reopened = reopen(home, period, config.reason, config.requested_by)
        served = refresh_ledger_marts(home)
        period_scope.after_ledger_write(home)
    context.log_event(
        AssetObservation(
            asset_key=PUBLISHED_PERIOD,
            partition=context.partition_key,
            description=f"reopened: {config.reason}",
            metadata={
                "reopen_id": reopened.reopen_id,
                "close_id": reopened.close_id,
                "close_version": reopened.close_version,
                "reopened_at": reopened.reopened_at.isoformat() + "Z",
                "reason": reopened.reason,
                "requested_by": config.requested_by,
                "next_close_version": reopened.close_version + 1,
            },
        )
    )
    context.log_event(served_materialization(served))
    context.log.info(f"period {period} reopened ({reopened.reopen_id})")


@job(
    name=REOPEN_PERIOD,
    partitions_def=MONTHLY,
    description="Reopen a closed month (give the reason in the run config); its close stays.",
)
def reopen_period() -> None:
    reopen_close()
