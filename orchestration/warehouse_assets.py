"""The dbt project as assets (dagster-dbt): every model, with its data tests as asset checks.

One step builds the whole warehouse, as `gpuledger build` always did: under the home lock
(one DuckDB writer at a time; a second build waits), it validates the policy and writes its
snapshot, runs the expectation suites on any landed batch not validated yet (batches landed
with `gpuledger ingest` rather than through the inbox), waits for any other process holding
warehouse.duckdb (a bounded wait, then one line naming it), runs `dbt build` without unit
tests against the home and, when it succeeded, serves the marts to readers
(orchestration.serving_assets). In a monthly_close run it first refuses a period that is closed.
Models are not partitioned: each build computes every period, the incremental telemetry
models only the days new batches touch (gpuledger.core.incremental; a run's
`gpuledger/rebuild_days` tag adds days, e.g. a range of daily partitions). The assets are
built from the manifest when the Definitions are built, so a long-lived process (pytest, the
CLI in a test) that builds its Definitions again sees models added meanwhile; a run whose
definitions are older than the project refuses to start dbt (dagster-dbt cannot map a node it
does not know), and the CLI then runs once more on fresh definitions.
"""

import datetime as dt
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dagster import (
    AssetCheckResult,
    AssetExecutionContext,
    AssetKey,
    AssetsDefinition,
    AssetSpec,
    Output,
)
from dagster_dbt import DagsterDbtTranslator, DbtCliResource, dbt_assets

from extractors import crashpoints, progress
from extractors.rawstore import raw_store_lock, sweep_interrupted
from gpuledger.core import incremental, period_scope
from gpuledger.core.gate import ALREADY_CLOSED, close_gate
from gpuledger.core.home import home_lock
from gpuledger.core.ledger import stamp_build
from gpuledger.core.policy import PolicyError
from gpuledger.core.serving import serve
from gpuledger.core.warehouse import (
    BUILD_ARGS,
    BuildError,
    WarehouseLocked,
    await_warehouse,
    build_error,
    dbt_environment,
    dbt_target,
    prepare,
    run_dbt,
    seed_partial_parse,
)
from orchestration.outcomes import FAILED, STALE, refusal, refused_on
from orchestration.partitions import period_of
from orchestration.project import dbt_project, prepare_manifest
from orchestration.resources import GpuLedgerResource
from orchestration.serving_assets import served_materialization
from orchestration.validation import validate_pending

RECONCILIATION = AssetKey(["marts", "fact_reconciliation"])
STALE_MESSAGE = (
    "the dbt project changed since these definitions were loaded; reload the definitions "
    "(UI: Reload definitions) and run again"
)
CHARGEBACK = AssetKey(["marts", "fact_chargeback"])
SHOWBACK = AssetKey(["marts", "fact_showback"])
# a build records its batches as built only when it ran every model that keeps them
INCREMENTAL_KEYS = {AssetKey([schema, name]) for schema, name, _ in incremental.RECORDED_MODELS}
PERIOD_KEYS = {AssetKey([schema, name]) for schema, name in period_scope.PERIOD_MODELS}
REBUILD_TAG = "gpuledger/rebuild_days"


def rebuild_days(tags: Mapping[str, str]) -> list[dt.date]:
    """The days a run's `gpuledger/rebuild_days` tag asks to rebuild besides the new
    batches' (`YYYY-MM-DD` or `YYYY-MM-DD..YYYY-MM-DD`, e.g. a range of daily partitions
    whose evidence was corrected in place), as the first and last."""
    value = tags.get(REBUILD_TAG, "").strip()
    if not value:
        return []
    first, _, last = value.partition("..")
    try:
        return [dt.date.fromisoformat(first), dt.date.fromisoformat(last or first)]
    except ValueError:
        expected = "expected YYYY-MM-DD or YYYY-MM-DD..YYYY-MM-DD"
        raise refusal(FAILED, f"{REBUILD_TAG}={value!r}: {expected}") from None


class LayerTranslator(DagsterDbtTranslator):
    """dagster-dbt's default keys ([schema, model]; [source, table]), grouped by layer."""

    def get_asset_spec(
        self, manifest: Mapping[str, Any], unique_id: str, project: Any
    ) -> AssetSpec:
        spec = super().get_asset_spec(manifest, unique_id, project)
        props = self.get_resource_props(manifest, unique_id)
        if props["resource_type"] == "model":
            return spec.replace_attributes(group_name=props["fqn"][1])
        return spec


@contextmanager
def _dbt_environment(variables: Mapping[str, str]) -> Iterator[None]:
    """dagster-dbt hands dbt a copy of os.environ: profiles.yml reads GPULEDGER_HOME, the
    incremental models GPULEDGER_REBUILD_WINDOW, dbt its file log level."""
    before = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value


def _node(event: Output | AssetCheckResult) -> str:
    """The model or test an event of the build reports, as the progress display names it
    (one per selected asset and check; a singular test over several models is observed on
    each of them and counts in none)."""
    if isinstance(event, AssetCheckResult):
        return f"{event.asset_key.path[-1]} {event.check_name}"
    return event.output_name


def _rebuild_in_pieces(
    context: AssetExecutionContext, home: Path, days: incremental.Window
) -> incremental.Window:
    """A window too large to rebuild beside the rest of the build (a model reading more
    telemetry rows than incremental.ALONE_ROWS, incremental.model_rows; or more than one
    piece: a fleet month built the first time) is rebuilt before it, in one dbt run of the
    incremental models and their parents: each model's window in pieces of whole days or
    hours (incremental.chunks) that its by_day materialization replaces one after another,
    so memory stays bounded and dbt starts once. Each model is rebuilt over every piece
    before the next model starts (dbt's order: a piece of the hourly roll-up reads the
    samples an hour past its end, which the next piece of staging holds). A model may take
    more rows a piece (incremental.CHUNK_SCALE). The build then names no day; a window that
    fits is left to the build (incremental.plan)."""
    pieces = incremental.plan(days, incremental.day_rows(home, days))
    if pieces is None:
        return days
    models = list(pieces)
    for model in models:
        spans = ", ".join(str(piece) for piece in pieces[model])
        context.log.info(f"rebuilding {model} in {len(pieces[model])} piece(s): {spans}")
    environment = {**days.environment(), **incremental.pieces_environment(pieces, home)}
    select = ["--select", *(f"+{model}" for model in models)]
    total = sum(len(cut) for cut in pieces.values())
    with progress.task("rebuild telemetry", total=total, unit="pieces"):

        def on_line(line: str) -> None:
            if incremental.PIECE_DONE in line:
                note = line.split(incremental.PIECE_DONE, 1)[1].strip()
                progress.advance(done=1, note=note)

        try:
            run_dbt(home, ["run", *select, *days.args()], environment, on_line=on_line)
        except BuildError as exc:
            raise refusal(FAILED, str(exc)) from None
    return days.done()


def _run_dbt(
    context: AssetExecutionContext,
    dbt: DbtCliResource,
    args: list[str],
    target: Path,
    days: incremental.Window,
    frozen: tuple[str, ...] = (),
) -> Iterator[Any]:
    """dbt build's events, with progress per node; dbt has stopped when this returns."""
    home = context.resources.gpuledger.home_path()
    variables = {**dbt_environment(home), **days.environment()}
    with _dbt_environment({**variables, **period_scope.environment(frozen)}):
        invocation = dbt.cli(args, context=context, target_path=target, raise_on_error=False)
    nodes = len(context.selected_asset_keys) + len(context.selected_asset_check_keys)
    try:
        with progress.task("dbt build", total=nodes or None, unit="nodes"):
            for event in invocation.stream():
                crashpoints.reached("build:dbt-running")
                if isinstance(event, Output | AssetCheckResult):
                    progress.advance(done=1, note=_node(event))
                yield event
    finally:
        # dbt holds the DuckDB file: never release the lock while it still runs
        # (if the stream stopped early, nobody reads dbt's output: stop it)
        if invocation.process.poll() is None:
            invocation.process.terminate()
        invocation.process.wait()
    if not invocation.is_successful():
        error = invocation.get_error()
        raise refusal(FAILED, str(build_error("build", target, str(error or ""))))


def warehouse_assets() -> AssetsDefinition:
    """The dbt assets of the manifest as it is now (orchestration.project.prepare_manifest)."""
    built_from = dbt_project.manifest_path.stat().st_mtime_ns

    @dbt_assets(
        manifest=dbt_project.manifest_path,
        project=dbt_project,
        dagster_dbt_translator=LayerTranslator(),
        name="warehouse",
    )
    def warehouse(
        context: AssetExecutionContext, dbt: DbtCliResource, gpuledger: GpuLedgerResource
    ) -> Iterator[Any]:
        home = gpuledger.home_path()
        with home_lock(home), refused_on(WarehouseLocked):
            if context.has_partition_key:
                gate = close_gate(home, period_of(context.partition_key), evaluate=False)
                if gate.kind == ALREADY_CLOSED:
                    raise refusal(ALREADY_CLOSED, gate.message)
            if prepare_manifest().stat().st_mtime_ns != built_from:
                # dagster-dbt cannot map a node it does not know: run again on a fresh load
                raise refusal(STALE, STALE_MESSAGE)
            try:
                prepare(home, gpuledger.policy_path())
            except PolicyError as exc:
                raise refusal(FAILED, str(exc)) from None
            for moved in sweep_interrupted(home):
                context.log.warning(f"swept a file an interrupted ingest left: {moved}")
            for outcome in validate_pending(home):
                context.log.info(outcome.summary())
            target = dbt_target(home)
            (target / "run_results.json").unlink(missing_ok=True)
            seed_partial_parse(target)
            await_warehouse(home)
            stamp_build(home)
            with raw_store_lock(home, shared=True):
                days = incremental.window(home, rebuild_days(context.run.tags))
                context.log.info(str(days))
                batches = incremental.manifested_batches(home)
                frozen = () if days.full_refresh else period_scope.frozen(home, batches)
                context.log.info(period_scope.describe(frozen))
                rest = _rebuild_in_pieces(context, home, days)
                args = [*BUILD_ARGS, *rest.args()]
                yield from _run_dbt(context, dbt, args, target, rest, frozen)
            if context.selected_asset_keys >= INCREMENTAL_KEYS:
                incremental.record(home, days)
            if context.selected_asset_keys >= PERIOD_KEYS:
                period_scope.record(home, batches)
            context.log_event(served_materialization(serve(home)))

    return warehouse
