"""Extractor assets: one multi-asset per source, one asset per raw table it lands.

The asset key of raw table T of source S is [S, T], which is dagster-dbt's key for
`source('S', 'T')`, so the staging models hang off the extractor that lands their evidence.
A daily partition lands the files dropped in `<home>/inbox/S/` that day (orchestration/inbox.py)
and runs the Great Expectations suites on the new batches; the suite result of each table is
the asset check `raw_batch_expectations` (severity WARN: it fails when a record was held back
at landing, or a landed batch failed in GX; the warehouse never reads either). Files the
source cannot read fail the step after the good ones are landed.
"""

from collections.abc import Iterator, Mapping

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    AssetKey,
    AssetsDefinition,
    AssetSpec,
    MaterializeResult,
    multi_asset,
)

from orchestration.inbox import land_inbox
from orchestration.outcomes import FAILED, refusal
from orchestration.partitions import DAILY
from orchestration.resources import GpuLedgerResource
from orchestration.sources import source_tables
from orchestration.validation import EXPECTATIONS_CHECK, suite_for


def _extractor_assets(source: str, tables: Mapping[str, type]) -> AssetsDefinition:
    keys = {table: AssetKey([source, table]) for table in tables}

    @multi_asset(
        name=f"land_{source}",
        specs=[
            AssetSpec(
                key,
                group_name="raw",
                kinds={"parquet"},
                description=(
                    f"Raw table {table} as landed by extractors/{source} "
                    f"(<home>/raw/{table}/<batch_id>.parquet)."
                ),
            )
            for table, key in keys.items()
        ],
        check_specs=[
            AssetCheckSpec(
                EXPECTATIONS_CHECK,
                asset=key,
                description="; ".join(e.describe() for e in suite_for(tables[table])),
            )
            for table, key in keys.items()
        ],
        partitions_def=DAILY,
    )
    def land(
        context: AssetExecutionContext, gpuledger: GpuLedgerResource
    ) -> Iterator[MaterializeResult]:
        outcome = land_inbox(gpuledger.home_path(), source, context.partition_key)
        for line in (v.summary() for v in outcome.validations):
            context.log.info(line)
        for table, key in keys.items():
            suites = [(v, s) for v in outcome.validations for s in v.suites if s.table == table]
            quarantined = [
                f"{v.batch_id}: {'; '.join(s.failures)}" for v, s in suites if not s.success
            ]
            held_back = [
                f"{r.file}:{q.line}: {q.reason}"
                for r in outcome.landed
                for q in r.rejected
                if q.reason.startswith(f"{table}: ")
            ]
            yield MaterializeResult(
                asset_key=key,
                metadata={
                    "files landed": len(outcome.landed),
                    "rows landed": sum(r.rows_by_table.get(table, 0) for r in outcome.landed),
                    "records read": sum(r.records_read for r in outcome.landed),
                    "records quarantined": sum(r.records_quarantined for r in outcome.landed),
                    "batches": [r.batch_id for r in outcome.landed],
                },
                check_results=[
                    AssetCheckResult(
                        asset_key=key,
                        check_name=EXPECTATIONS_CHECK,
                        passed=not quarantined and not held_back,
                        severity=AssetCheckSeverity.WARN,
                        metadata={
                            "batches validated": len(suites),
                            "records held back at landing": held_back[:50],
                            "batches quarantined": quarantined,
                            "results": [v.results_path for v, _ in suites],
                        },
                    )
                ],
            )
        if outcome.failed:
            raise refusal(
                FAILED,
                "; ".join(f"{file}: {error}" for file, error in outcome.failed)
                + " (moved to <home>/inbox/.failed)",
            )

    return land


def extractor_assets() -> list[AssetsDefinition]:
    return [_extractor_assets(source, tables) for source, tables in source_tables().items()]
