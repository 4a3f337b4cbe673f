"""Great Expectations runs the expectation suite of each raw table on every landed batch.

The suites (extractors.expectations, derived from the record types) already held back, at
landing, every record that breaks them (extractors.landing), so what landed should meet
them: GX confirms it independently, per batch and table, as the Dagster asset check of each
raw table. GX runs the pandas route (stack-probe section 5) in an ephemeral context, imported
only when a batch has rows to validate. The results are kept as JSON under
`<home>/validations/<source>/<batch_id>.json`, and every validated batch gets a record
(gpuledger.core.validations) with its outcome and the UTC span its evidence covers (min and
max of its timestamps, extended to the extraction time when an interval is still open).

Should GX still find a landed row that breaks its suite, the two evaluations disagree and the
whole batch is taken out (extractors.quarantine.quarantine_batch: its records go to quarantine,
its manifest says 0 landed), so no doubtful evidence reaches a charge.

The caller holds the home lock (gpuledger.core.home.home_lock) around every function here.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from extractors.expectations import Expectation, ordered_pairs, record_fields, suite_for
from extractors.quarantine import is_release, quarantine_batch
from extractors.rawstore import BATCHES_TABLE, BatchRow, batch_files, raw_dir
from gpuledger.core.validations import (
    VALIDATION_PASSED,
    VALIDATION_QUARANTINED,
    BatchValidation,
    ensure_validation_layout,
    validated_batch_ids,
    validations_dir,
    write_validation,
)
from orchestration.sources import source_tables

EXPECTATIONS_CHECK = "raw_batch_expectations"


def to_gx(expectation: Expectation) -> Any:
    """The Great Expectations expectation of one suite entry."""
    import great_expectations.expectations as gxe

    if expectation.kind == "not_null":
        return gxe.ExpectColumnValuesToNotBeNull(column=expectation.columns[0])
    if expectation.kind == "ordered":
        return gxe.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A=expectation.columns[1],
            column_B=expectation.columns[0],
            or_equal=True,
            ignore_row_if="either_value_is_missing",
        )
    return gxe.ExpectColumnValuesToBeBetween(
        column=expectation.columns[0],
        min_value=expectation.min_value,
        max_value=expectation.max_value,
    )


@dataclass(frozen=True)
class SuiteOutcome:
    table: str
    rows: int
    expectations: int
    failures: tuple[str, ...]  # "<expectation>: <n> of <rows> rows"

    @property
    def success(self) -> bool:
        return not self.failures


@dataclass(frozen=True)
class BatchOutcome:
    batch_id: str
    source: str
    file: str
    quarantined: bool
    suites: tuple[SuiteOutcome, ...]
    results_path: str
    first_evidence_at: dt.datetime | None
    last_evidence_at: dt.datetime | None

    def summary(self) -> str:
        if not self.quarantined:
            return f"batch {self.batch_id} ({self.file}): expectations met"
        failures = "; ".join(f"{s.table}: {', '.join(s.failures)}" for s in self.suites)
        return f"batch {self.batch_id} ({self.file}) QUARANTINED: {failures}"


def _gx_context() -> Any:
    # GX reads its analytics switch from the environment only; it must not phone home.
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    return context


def _manifest(home: Path, batch_id: str) -> BatchRow:
    path = raw_dir(home) / BATCHES_TABLE / f"{batch_id}.parquet"
    return BatchRow(**pq.read_table(path).to_pylist()[0])


def _table_path(home: Path, table: str, batch_id: str) -> Path:
    return raw_dir(home) / table / f"{batch_id}.parquet"


def _evidence_span(
    frames: Mapping[str, Any], tables: Mapping[str, type], extracted_at: dt.datetime
) -> tuple[dt.datetime | None, dt.datetime | None]:
    """Min and max of the batch's timestamps; an open interval (an end column unset where
    its start is set) reaches the extraction time."""
    lows, highs = [], []
    for table, frame in frames.items():
        if frame.empty:
            continue
        stamps = [f.name for f in record_fields(tables[table]) if f.base is dt.datetime]
        for column in stamps:
            values = frame[column].dropna()
            if not values.empty:
                lows.append(values.min().to_pydatetime())
                highs.append(values.max().to_pydatetime())
        for start, end in ordered_pairs(tables[table]):
            if (frame[start].notna() & frame[end].isna()).any():
                highs.append(extracted_at)
    if not lows:
        return None, None
    return min(lows), max(highs)


def _run_suites(
    context: Any, batch_id: str, frames: Mapping[str, Any], tables: Mapping[str, type]
) -> dict[str, tuple[SuiteOutcome, dict, list[tuple[int, str, str]]]]:
    """Per table: the outcome, GX's JSON result and the failing (row index, field, reason)."""
    import great_expectations as gx

    source = context.data_sources.add_pandas(batch_id)
    results = {}
    for table, frame in frames.items():
        expectations = suite_for(tables[table])
        batch = source.add_dataframe_asset(table).add_batch_definition_whole_dataframe("batch")
        suite = context.suites.add(
            gx.ExpectationSuite(
                name=f"{batch_id}/{table}", expectations=[to_gx(e) for e in expectations]
            )
        )
        definition = context.validation_definitions.add(
            gx.ValidationDefinition(name=f"{batch_id}/{table}", data=batch, suite=suite)
        )
        result = definition.run(batch_parameters={"dataframe": frame}, result_format="COMPLETE")
        failures, failing_rows = [], []
        for expectation, outcome in zip(expectations, result.results, strict=True):
            if outcome.success:
                continue
            indexes = outcome.result.get("unexpected_index_list") or []
            failures.append(f"{expectation.describe()}: {len(indexes)} of {len(frame)} rows")
            reason = f"{table}: expectation {expectation.describe()} failed"
            failing_rows.extend((i, ",".join(expectation.columns), reason) for i in indexes)
        outcome = SuiteOutcome(table, len(frame), len(expectations), tuple(failures))
        results[table] = (outcome, result.to_json_dict(), failing_rows)
        # the context is shared by every batch of a build: let go of this one's data (kept,
        # 187 batches of a 4,096-GPU month grew the process past 24 GB)
        context.validation_definitions.delete(f"{batch_id}/{table}")
        context.suites.delete(f"{batch_id}/{table}")
    context.data_sources.delete(batch_id)
    return results


def _validate_batch(
    home: Path,
    batch_id: str,
    sources: Mapping[str, Mapping[str, type]],
    context: Callable[[], Any],
) -> BatchOutcome:
    """Run the suites of one landed batch, quarantine it if one fails, record the outcome."""
    batch = _manifest(home, batch_id)
    tables = sources.get(batch.source, {})
    frames = {
        table: pq.read_table(_table_path(home, table, batch_id)).to_pandas()
        for table in tables
        if _table_path(home, table, batch_id).exists()
    }
    results = _run_suites(context(), batch_id, frames, tables) if frames else {}
    suites = tuple(outcome for outcome, _, _ in results.values())
    # a released batch landed what a user decided to let through: GX reports, never removes
    quarantined = any(not s.success for s in suites) and not is_release(batch)
    first_at, last_at = _evidence_span(frames, tables, batch.extracted_at)
    failed = "; ".join(f"{s.table}: {', '.join(s.failures)}" for s in suites if not s.success)
    if quarantined:
        failing = {table: rows for table, (_, _, rows) in results.items()}
        quarantine_batch(home, batch, tables, failing, failed)
    folder = validations_dir(home) / batch.source
    folder.mkdir(parents=True, exist_ok=True)
    results_path = folder / f"{batch_id}.json"
    validated_at = dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0)
    outcome_name = VALIDATION_QUARANTINED if quarantined else VALIDATION_PASSED
    results_path.write_text(
        json.dumps(
            {
                "batch_id": batch_id,
                "source": batch.source,
                "file": batch.file,
                "outcome": outcome_name,
                "validated_at": validated_at.isoformat() + "Z",
                "first_evidence_at": first_at.isoformat() if first_at else None,
                "last_evidence_at": last_at.isoformat() if last_at else None,
                "suites": {table: result for table, (_, result, _) in results.items()},
            },
            indent=1,
            default=str,
        )
        + "\n"
    )
    write_validation(
        home,
        BatchValidation(
            batch_id=batch_id,
            source=batch.source,
            outcome=outcome_name,
            validated_at=validated_at,
            first_evidence_at=first_at,
            last_evidence_at=last_at,
            failed_expectations=failed,
            results_path=str(results_path),
        ),
    )
    return BatchOutcome(
        batch_id=batch_id,
        source=batch.source,
        file=batch.file,
        quarantined=quarantined,
        suites=suites,
        results_path=str(results_path),
        first_evidence_at=first_at,
        last_evidence_at=last_at,
    )


def validate_batches(home: Path, batch_ids: Iterable[str]) -> list[BatchOutcome]:
    """Validate those of `batch_ids` that have no validation record yet (one GX context for
    all of them, created only if a batch has rows to validate)."""
    ensure_validation_layout(home)
    done = validated_batch_ids(home)
    pending = sorted(set(batch_ids) - done)
    if not pending:
        return []
    sources = source_tables()
    context = functools.cache(_gx_context)
    return [_validate_batch(home, b, sources, context) for b in pending]


def validate_pending(home: Path) -> list[BatchOutcome]:
    """Validate every landed batch without a validation record (however it was landed)."""
    folder = raw_dir(home) / BATCHES_TABLE
    landed = [p.stem for p in batch_files(folder)]
    return validate_batches(home, landed)
