"""published_period: the closed ledger of one month, downstream of the blocking checks.

It runs only when every reconciliation check of the run passed (they block it). Under the home
lock it then asks the close gate (gpuledger.core.gate) once more, in the warehouse as it is now
(another close may have won meanwhile), appends the close to the ledger (gpuledger.core.ledger),
refreshes the marts that serve closed periods from the ledger (`dbt run --select
fact_chargeback+`, outside dagster-dbt: those assets are not re-reported) and serves the marts
to readers again, recorded as a materialization of serving/marts.
"""

from dagster import AssetExecutionContext, Config, MaterializeResult, asset

from gpuledger.core import period_scope
from gpuledger.core.gate import READY, UNFINISHED, close_gate, evaluate_checks
from gpuledger.core.home import home_lock
from gpuledger.core.ledger import finish_publication, publish
from gpuledger.core.warehouse import WarehouseLocked
from orchestration.outcomes import refusal, refused_on
from orchestration.partitions import MONTHLY, period_of
from orchestration.resources import GpuLedgerResource
from orchestration.serving_assets import served_materialization
from orchestration.warehouse_assets import CHARGEBACK, RECONCILIATION, SHOWBACK


class CloseConfig(Config):
    approver: str = "dagster"


@asset(
    partitions_def=MONTHLY,
    deps=[CHARGEBACK, SHOWBACK, RECONCILIATION],
    group_name="ledger",
    kinds={"duckdb"},
    description=(
        "The append-only published ledger of the month: ledger.closes, ledger.chargeback_lines, "
        "ledger.close_batches and <home>/ledger/<period>/<close_id>.parquet/.json."
    ),
)
def published_period(
    context: AssetExecutionContext, config: CloseConfig, gpuledger: GpuLedgerResource
) -> MaterializeResult:
    period = period_of(context.partition_key)
    home = gpuledger.home_path()
    with home_lock(home), refused_on(WarehouseLocked):
        gate = close_gate(home, period)
        if gate.kind == UNFINISHED:
            close = gate.close
            served = finish_publication(home, close, evaluate_checks(home, period).checks)
            context.log.info(f"finished the publication of {close.close_id}, begun earlier")
        elif gate.kind == READY:
            close = publish(home, period, config.approver)
            served = finish_publication(home, close, gate.checks)
        else:
            raise refusal(gate.kind, gate.message)
        period_scope.after_ledger_write(home)
    context.log_event(served_materialization(served))
    context.log.info(f"period {period} closed and published as {close.close_id}")
    return MaterializeResult(
        metadata={
            "close_id": close.close_id,
            "close_version": close.close_version,
            "closed_at": close.closed_at.isoformat() + "Z",
            "approver": close.approver,
            "line_count": close.line_count,
            "total_amount": float(close.total_amount),
            "lines_sha256": close.lines_sha256,
            "input_manifest_hash": close.input_manifest_hash,
        }
    )
