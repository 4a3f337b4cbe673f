"""The one Definitions of GPU Ledger: `dagster dev -m orchestration.definitions` (make ui).

The graph: extractor assets (raw group, daily) -> dbt staging, intermediate and marts (dagster-
dbt, data tests as checks) -> blocking reconciliation checks on marts/fact_reconciliation ->
published_period (monthly; the reopen_period job reopens it); serving/marts, the served copy
readers use, downstream of the marts and the ledger (published by the build and the close
steps). Every job runs in process (one step at a time): the steps share one DuckDB file and
serialize on the home lock anyway, and a subprocess per step would only add start-up time.

`build_definitions` takes the deployment resource, so the CLI runs the very same jobs against
its --home and --policy (orchestration/runner.py). It first brings the dbt manifest up to date
and rebuilds the dbt assets and reconciliation checks when the manifest changed, so a process
that lives on (pytest, a notebook) sees models added since it started.
"""

from __future__ import annotations

import functools

from dagster import AssetChecksDefinition, AssetsDefinition, Definitions, in_process_executor

from orchestration.checks import reconciliation_checks
from orchestration.jobs import (
    build_jobs,
    daily_provisional_build,
    inbox_sensor,
    monthly_close_schedule,
)
from orchestration.ledger_assets import published_period
from orchestration.project import dbt_resource, prepare_manifest
from orchestration.raw_assets import extractor_assets
from orchestration.reopen import reopen_period
from orchestration.resources import GpuLedgerResource
from orchestration.serving_assets import served_marts_spec
from orchestration.warehouse_assets import warehouse_assets


@functools.lru_cache(maxsize=1)
def _dbt_graph(manifest_version: int) -> tuple[AssetsDefinition, AssetChecksDefinition]:
    return warehouse_assets(), reconciliation_checks()


def build_definitions(gpuledger: GpuLedgerResource) -> Definitions:
    warehouse, checks = _dbt_graph(prepare_manifest().stat().st_mtime_ns)
    return Definitions(
        assets=[*extractor_assets(), warehouse, published_period, served_marts_spec(warehouse)],
        asset_checks=[checks],
        jobs=[*build_jobs(warehouse, checks), reopen_period],
        schedules=[daily_provisional_build, monthly_close_schedule],
        sensors=[inbox_sensor],
        resources={"gpuledger": gpuledger, "dbt": dbt_resource()},
        executor=in_process_executor,
    )


defs = build_definitions(GpuLedgerResource())
