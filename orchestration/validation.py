"""Great Expectations runs the expectation suite of each raw table on every landed batch.

The suites (extractors.expectations, derived from the record types) already held back, at
landing, every record that breaks them (extractors.landing), so what landed should meet
them: GX confirms it independently, per batch and table, as the Dagster asset check of each
raw table. GX runs the pandas route (stack-probe section 5) in an ephemeral context, imported
only when a batch has a table to validate, on a slice of rows at a time (about
GPULEDGER_VALIDATION_CHUNK_BYTES of Arrow data, 16 MiB by default), so validating a batch takes
the same memory whatever its size. The results are kept as JSON under
`<home>/validations/<source>/<batch_id>.json`, and every validated batch gets a record
(gpuledger.core.validations) with its outcome and the UTC span its evidence covers (min and
max of its timestamps, extended to the extraction time when an interval is still open).

Should GX still find a landed row that breaks its suite, the two evaluations disagree and the
whole batch is taken out (extractors.quarantine.quarantine_batch: its records go to quarantine,
its manifest says 0 landed), so no doubtful evidence reaches a charge.

The caller holds the home lock (gpuledger.core.home.home_lock) around every function here.
"""

from __future__ import annotations

import concurrent.futures
import datetime as dt
import functools
import json
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
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
    from great_expectations.execution_engine import pandas_execution_engine

    # GX fingerprints every pandas batch under HASH_THRESHOLD bytes (an md5 over pandas' hash
    # of every row) for a marker of its results: a quarter of validating a slice (a 5.9M-point
    # batch of a 4,096-GPU fleet, 9 slices: 1.40 s, 1.01-1.06 s without). Nothing reads it: a
    # slice is its batch's file (immutable, named by the sha256 of the source content its
    # manifest records) from its first row, which the results keep.
    pandas_execution_engine.HASH_THRESHOLD = 0
    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    return context


def _manifest(home: Path, batch_id: str) -> BatchRow:
    path = raw_dir(home) / BATCHES_TABLE / f"{batch_id}.parquet"
    return BatchRow(**pq.read_table(path).to_pylist()[0])


def _table_path(home: Path, table: str, batch_id: str) -> Path:
    return raw_dir(home) / table / f"{batch_id}.parquet"


# A batch is validated a slice of rows at a time, each about this much Arrow data (pandas and
# GX hold ~20x that). A 589,824-line sacct batch validated whole peaked at 949 MiB, and memory
# grew with the batch; in slices of 16 MiB it peaks at 734 MiB whatever the batch.
CHUNK_BYTES_VARIABLE = "GPULEDGER_VALIDATION_CHUNK_BYTES"
DEFAULT_CHUNK_BYTES = 16 * 2**20


def _chunk_bytes() -> int:
    value = os.environ.get(CHUNK_BYTES_VARIABLE, "").strip()
    if not value:
        return DEFAULT_CHUNK_BYTES
    try:
        return max(int(value), 1)
    except ValueError:
        raise ValueError(f"{CHUNK_BYTES_VARIABLE}={value!r} is not a number of bytes") from None


@functools.cache
def suite_columns(record: type) -> tuple[str, ...]:
    """The columns validating a table of `record` reads, in the record's order: those its
    suite names and its timestamps (the evidence span, _Span; an ordered pair's columns are
    among them)."""
    named = {column for expectation in suite_for(record) for column in expectation.columns}
    named |= {f.name for f in record_fields(record) if f.base is dt.datetime}
    return tuple(f.name for f in record_fields(record) if f.name in named)


def read_bytes(file: pq.ParquetFile, columns: Iterable[str]) -> tuple[list[str], int]:
    """Those of `columns` the file has, and their uncompressed bytes over its row groups."""
    schema, meta = file.schema_arrow, file.metadata
    read = [c for c in columns if c in schema.names]
    size = sum(
        meta.row_group(g).column(schema.get_field_index(c)).total_uncompressed_size
        for g in range(meta.num_row_groups)
        for c in read
    )
    return read, size


def _chunks(path: Path, columns: Iterable[str]) -> Iterator[tuple[int, Any]]:
    """(first row, pandas frame of those of `columns` the file has) for each slice of the
    table file, at least one (empty). A column the file lacks is left out (GX then reports
    its expectations failed, as with the whole file)."""
    file = pq.ParquetFile(path)
    meta = file.metadata
    read, size = read_bytes(file, columns)
    rows = max(int(_chunk_bytes() * meta.num_rows / size), 1) if size else max(meta.num_rows, 1)
    first = 0
    for batch in file.iter_batches(batch_size=rows, columns=read):
        yield first, batch.to_pandas()
        first += batch.num_rows
    if first == 0:
        yield 0, file.schema_arrow.empty_table().select(read).to_pandas()


class _Span:
    """Min and max of a batch's timestamps over its slices; an open interval (an end column
    unset where its start is set) reaches the extraction time."""

    def __init__(self) -> None:
        self.lows: list[dt.datetime] = []
        self.highs: list[dt.datetime] = []
        self.open = False

    def add(self, frame: Any, record: type) -> None:
        if frame.empty:
            return
        for column in [f.name for f in record_fields(record) if f.base is dt.datetime]:
            values = frame[column].dropna()
            if not values.empty:
                self.lows.append(values.min().to_pydatetime())
                self.highs.append(values.max().to_pydatetime())
        for start, end in ordered_pairs(record):
            self.open = self.open or bool((frame[start].notna() & frame[end].isna()).any())

    def bounds(self, extracted_at: dt.datetime) -> tuple[dt.datetime | None, dt.datetime | None]:
        if not self.lows:
            return None, None
        return min(self.lows), max([*self.highs, extracted_at] if self.open else self.highs)


def _run_suite(
    context: Any, batch_id: str, table: str, record: type, path: Path, span: _Span
) -> tuple[SuiteOutcome, dict, list[tuple[int, str, str]]]:
    """The suite of one table file, run on each slice: the outcome, GX's JSON result of each
    slice and the failing (row index in the file, field, reason)."""
    import great_expectations as gx

    expectations = suite_for(record)
    name = f"{batch_id}/{table}"
    source = context.data_sources.add_pandas(name)
    batch = source.add_dataframe_asset(table).add_batch_definition_whole_dataframe("batch")
    suite = context.suites.add(
        gx.ExpectationSuite(name=name, expectations=[to_gx(e) for e in expectations])
    )
    definition = context.validation_definitions.add(
        gx.ValidationDefinition(name=name, data=batch, suite=suite)
    )
    unexpected = [0] * len(expectations)
    failing_rows: list[tuple[int, str, str]] = []
    chunks, rows = [], 0
    for first, frame in _chunks(path, suite_columns(record)):
        span.add(frame, record)
        result = definition.run(batch_parameters={"dataframe": frame}, result_format="COMPLETE")
        for position, (expectation, outcome) in enumerate(
            zip(expectations, result.results, strict=True)
        ):
            if outcome.success:
                continue
            indexes = outcome.result.get("unexpected_index_list") or []
            unexpected[position] += len(indexes)
            reason = f"{table}: expectation {expectation.describe()} failed"
            field = ",".join(expectation.columns)
            failing_rows.extend((first + i, field, reason) for i in indexes)
        chunks.append({"first_row": first, "rows": len(frame), **result.to_json_dict()})
        rows += len(frame)
        del frame, result
    # the context serves every batch of a build: let go of this one's (kept, the 187
    # batches of a 4,096-GPU month grew the process past 24 GB)
    context.validation_definitions.delete(name)
    context.suites.delete(name)
    context.data_sources.delete(name)
    failures = tuple(
        f"{expectation.describe()}: {count} of {rows} rows"
        for expectation, count in zip(expectations, unexpected, strict=True)
        if count
    )
    outcome = SuiteOutcome(table, rows, len(expectations), failures)
    summary = {"success": outcome.success, "rows": rows, "chunks": chunks}
    return outcome, summary, failing_rows


def _validate_batch(
    home: Path,
    batch_id: str,
    sources: Mapping[str, Mapping[str, type]],
    context: Callable[[], Any],
) -> BatchOutcome:
    """Run the suites of one landed batch, quarantine it if one fails, record the outcome."""
    batch = _manifest(home, batch_id)
    tables = sources.get(batch.source, {})
    span = _Span()
    results = {
        table: _run_suite(context(), batch_id, table, record, path, span)
        for table, record in tables.items()
        if (path := _table_path(home, table, batch_id)).exists()
    }
    suites = tuple(outcome for outcome, _, _ in results.values())
    # a released batch landed what a user decided to let through: GX reports, never removes
    quarantined = any(not s.success for s in suites) and not is_release(batch)
    first_at, last_at = span.bounds(batch.extracted_at)
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


# Validation is Python (pandas and GX) on one core; a build waits for it before dbt starts, so
# a large backlog (a fleet month landed and closed at once: 281 batches of 4,096 GPUs) is
# validated by this many processes, each its own GX context, one batch at a time each. A
# worker costs a GX import (2-4 s), so a backlog of fewer rows than WORKER_ROWS is validated
# in the build's own process.
WORKERS_VARIABLE = "GPULEDGER_VALIDATION_WORKERS"
WORKER_ROWS = 4_000_000


def _workers(home: Path, pending: list[str]) -> int:
    """How many processes validate `pending`: GPULEDGER_VALIDATION_WORKERS, else one per core
    (at most 2: the other core serves the rest of the machine); 1 (this process) for a
    backlog under WORKER_ROWS rows or one batch."""
    value = os.environ.get(WORKERS_VARIABLE, "").strip()
    try:
        workers = max(int(value), 1) if value else min(os.cpu_count() or 1, 2)
    except ValueError:
        raise ValueError(f"{WORKERS_VARIABLE}={value!r} is not a number of processes") from None
    if workers == 1 or len(pending) < 2:
        return 1
    rows = sum(
        pq.ParquetFile(path).metadata.num_rows
        for table in {t for tables in source_tables().values() for t in tables}
        for batch_id in pending
        if (path := _table_path(home, table, batch_id)).exists()
    )
    return min(workers, len(pending)) if rows >= WORKER_ROWS else 1


# a worker process's GX context, made for its first batch and kept for its next ones
_worker_context = functools.cache(_gx_context)


def _validate_in_worker(home: str, batch_id: str) -> BatchOutcome:
    """One batch in a worker process."""
    return _validate_batch(Path(home), batch_id, source_tables(), _worker_context)


def validate_batches(home: Path, batch_ids: Iterable[str]) -> list[BatchOutcome]:
    """Validate those of `batch_ids` that have no validation record yet, in their order (one
    GX context for all of them, created only if a batch has rows to validate; a large backlog
    in worker processes, _workers)."""
    ensure_validation_layout(home)
    done = validated_batch_ids(home)
    pending = sorted(set(batch_ids) - done)
    if not pending:
        return []
    workers = _workers(home, pending)
    if workers > 1:
        # spawned, not forked: a Dagster run process has threads of its own
        spawn = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(workers, mp_context=spawn) as pool:
            return list(pool.map(_validate_in_worker, [str(home)] * len(pending), pending))
    sources = source_tables()
    context = functools.cache(_gx_context)
    return [_validate_batch(home, b, sources, context) for b in pending]


def validate_pending(home: Path) -> list[BatchOutcome]:
    """Validate every landed batch without a validation record (however it was landed)."""
    folder = raw_dir(home) / BATCHES_TABLE
    landed = [p.stem for p in batch_files(folder)]
    return validate_batches(home, landed)
