"""The one writer of raw batches (into the raw store, extractors.rawstore).

A batch is written as one Parquet file per raw table under
`<home>/raw/<table>/<batch_id>.parquet`, its rejected records to
`<home>/raw/quarantine/<batch_id>.parquet`, and last a manifest row to
`<home>/raw/batches/<batch_id>.parquet`. Readers see a batch only once its manifest exists.

`BatchWriter` takes a batch chunk by chunk (Arrow tables of any size: a parser streaming a
large file hands over bounded chunks, so memory does not grow with the file), screens each
chunk (a record that breaks its table's expectation suite is held back with the records that
depend on it), appends it to the table's file and keeps the counts and the time the rows
name. `land` is the one-call form for a parse result held in memory.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from extractors import crashpoints, progress
from extractors.rawstore import (
    BATCHES_TABLE,
    QUARANTINE_TABLE,
    BatchRow,
    QuarantineRow,
    batch_id_for,
    ensure_layout,
    landed_schema,
    raw_dir,
    raw_store_lock,
    read_manifest,
    write_parquet_atomic,
)
from extractors.records import ParseResult, Rejected, Span, to_table
from extractors.screening import Screen, TimeTracker, covers_time


@dataclass(frozen=True)
class LandingReport:
    batch_id: str
    source: str
    file: str
    records_read: int
    records_landed: int
    records_quarantined: int
    rows_by_table: Mapping[str, int]
    already_landed: bool
    rejected: tuple[Rejected, ...] = ()
    warnings: tuple[str, ...] = ()

    def summary(self) -> str:
        if self.already_landed:
            return (
                f"{self.file}: already landed as batch {self.batch_id}; nothing to do "
                f"(read {self.records_read}, landed {self.records_landed}, "
                f"quarantined {self.records_quarantined})"
            )
        rows = ", ".join(f"{t} {n}" for t, n in sorted(self.rows_by_table.items()))
        return (
            f"{self.file}: read {self.records_read}, landed {self.records_landed}, "
            f"quarantined {self.records_quarantined} -> batch {self.batch_id} ({rows or 'no rows'})"
        )


class BatchWriter:
    """One batch, written chunk by chunk under the raw store's lock:

        with BatchWriter(home, source=..., file=..., batch_id=..., ...) as batch:
            if batch.existing is None:
                batch.write("slurm_jobs", chunk)  # as often as there are chunks
                batch.reject(rejected)
            report = batch.finish(records_read=n)

    Files are written under temporary names and renamed, the manifest last, only by
    `finish`; leaving the block without it (an exception) removes them. The block is the
    file's progress task (extractors.progress): the records it lands, and the bytes its
    streaming reader reports against the file's size."""

    def __init__(
        self,
        home: Path,
        *,
        source: str,
        file: str,
        batch_id: str,
        content_sha256: str,
        options: str,
        row_types: Mapping[str, type],
        extracted_at: dt.datetime | None = None,
        extracted_at_basis: str = "option",
        covers_from: dt.datetime | None = None,
        validate: bool = True,
    ) -> None:
        self.home, self.source, self.file, self.batch_id = home, source, file, batch_id
        self.content_sha256, self.options, self.row_types = content_sha256, options, row_types
        self.extracted_at, self.extracted_at_basis = extracted_at, extracted_at_basis
        self.covers_from = covers_from
        self.screen = Screen(source, row_types) if validate else None
        self.times = TimeTracker(row_types)
        self.existing: BatchRow | None = None
        self.unread: list[Rejected] = []  # what the parser could not read
        self.held: dict[int, Rejected] = {}  # what the screen held back, by line
        self.rows_by_table: dict[str, int] = {}
        self._writers: dict[str, pq.ParquetWriter] = {}
        self._lock = raw_store_lock(home)
        self._ready = False

    def __enter__(self) -> BatchWriter:
        self._lock.__enter__()
        self.existing = read_manifest(self.home, self.batch_id)
        path = Path(self.file)
        size = path.stat().st_size if path.is_file() else None
        self._progress = progress.task(f"{self.source} {path.name}", total=size, unit="bytes")
        self._progress.__enter__()
        return self

    def _laid_out(self) -> None:
        """The raw store's tables exist once something is written (a batch refused before
        its first chunk leaves a home without them)."""
        if not self._ready:
            ensure_layout(self.home)
            self._ready = True

    def _staged(self, table: str) -> Path:
        return raw_dir(self.home) / table / f"{self.batch_id}.parquet.tmp"

    def write(self, table: str, chunk: pa.Table) -> None:
        """Screen a chunk of `table`'s rows and append what lands."""
        if table not in self.row_types:
            raise KeyError(f"parser produced rows for undeclared raw table {table!r}")
        self._laid_out()
        held = self.screen.held_back(table, chunk) if self.screen else {}
        for line, rejected in held.items():
            self.held.setdefault(line, rejected)
        if held:
            lines = pa.array(sorted(held), pa.int64())
            chunk = chunk.filter(pc.invert(pc.is_in(chunk["source_line"], lines)))
        self.times.update(table, chunk)
        landed = chunk.append_column("batch_id", pa.repeat(self.batch_id, chunk.num_rows))
        if table not in self._writers:
            schema = landed_schema(table, self.row_types[table])
            # dictionary pages for the text columns only (keys, names, the batch id): numbers
            # and times seldom repeat, and trying them costs most of a large write
            text = [f.name for f in schema if pa.types.is_string(f.type)]
            self._writers[table] = pq.ParquetWriter(
                self._staged(table), schema, use_dictionary=text
            )
        self._writers[table].write_table(landed.cast(self._writers[table].schema))
        self.rows_by_table[table] = self.rows_by_table.get(table, 0) + landed.num_rows
        progress.advance(records=landed.num_rows)

    def reject(self, rejected: Sequence[Rejected]) -> None:
        """Records the parser could not read (each keeps its line, field, reason and text)."""
        self.unread.extend(rejected)

    def finish(
        self,
        records_read: int,
        *,
        coverage: Span | None = None,
        stated_extraction: dt.datetime | None = None,
        stated_basis: str | None = None,
        warnings: Sequence[str] = (),
    ) -> LandingReport:
        """Publish the batch: its table files, its quarantine, then its manifest."""
        self._laid_out()
        now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        for table, writer in self._writers.items():
            writer.close()
            self._staged(table).replace(raw_dir(self.home) / table / f"{self.batch_id}.parquet")
        self._writers.clear()
        rejected = [*self.unread, *(self.held[line] for line in sorted(self.held))]
        quarantined = len({r.line for r in rejected})
        if rejected:
            quarantine = [
                QuarantineRow(
                    self.batch_id, self.source, self.file, r.line, r.field, r.reason, r.raw, now
                )
                for r in rejected
            ]
            write_parquet_atomic(
                to_table(QuarantineRow, quarantine),
                raw_dir(self.home) / QUARANTINE_TABLE / f"{self.batch_id}.parquet",
            )
        extracted = self.times.extraction(
            self.extracted_at, self.extracted_at_basis, stated_extraction, stated_basis
        )
        if not covers_time(self.source):
            coverage = None
        elif coverage is None:
            coverage = self.times.span(extracted, self.covers_from)
        manifest = BatchRow(
            batch_id=self.batch_id,
            source=self.source,
            file=self.file,
            content_sha256=self.content_sha256,
            options=self.options,
            extracted_at=extracted.end if extracted else None,
            landed_at=now,
            records_read=records_read,
            records_landed=records_read - quarantined,
            records_quarantined=quarantined,
            rows_written=sum(self.rows_by_table.values()),
            extracted_at_basis=extracted.basis if extracted else "none",
            coverage_start_at=coverage.start if coverage else None,
            coverage_end_at=coverage.end if coverage else None,
            coverage_basis=coverage.basis if coverage else None,
        )
        crashpoints.reached("ingest:before-manifest")
        write_parquet_atomic(
            to_table(BatchRow, [manifest]),
            raw_dir(self.home) / BATCHES_TABLE / f"{self.batch_id}.parquet",
        )
        return LandingReport(
            batch_id=self.batch_id,
            source=self.source,
            file=self.file,
            records_read=records_read,
            records_landed=manifest.records_landed,
            records_quarantined=manifest.records_quarantined,
            rows_by_table=dict(self.rows_by_table),
            already_landed=False,
            rejected=tuple(rejected),
            warnings=tuple(warnings),
        )

    def already_landed(self) -> LandingReport:
        existing = self.existing
        return LandingReport(
            batch_id=self.batch_id,
            source=self.source,
            file=self.file,
            records_read=existing.records_read,
            records_landed=existing.records_landed,
            records_quarantined=existing.records_quarantined,
            rows_by_table={},
            already_landed=True,
        )

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        for table, writer in self._writers.items():
            writer.close()
            self._staged(table).unlink(missing_ok=True)
        self._progress.__exit__(kind, error, traceback)
        self._lock.__exit__(kind, error, traceback)


def land(
    home: Path,
    *,
    source: str,
    file: str,
    content: bytes,
    options: str,
    result: ParseResult,
    row_types: Mapping[str, type],
    extracted_at: dt.datetime | None = None,
    extracted_at_basis: str = "option",
    covers_from: dt.datetime | None = None,
    validate: bool = True,
) -> LandingReport:
    """Write one parsed batch held in memory (idempotent). `row_types` maps each raw table to
    its record type. `extracted_at` is the instant the caller knows the evidence was read (an
    --extracted-at option, the live clock: `extracted_at_basis`); else the format's or the
    rows' own. `validate=False` lands every row as parsed (a release from quarantine: the
    user decided)."""
    with BatchWriter(
        home,
        source=source,
        file=file,
        batch_id=batch_id_for(source, options, content),
        content_sha256=hashlib.sha256(content).hexdigest(),
        options=options,
        row_types=row_types,
        extracted_at=extracted_at,
        extracted_at_basis=extracted_at_basis,
        covers_from=covers_from,
        validate=validate,
    ) as batch:
        if batch.existing is not None:
            return batch.already_landed()
        parents = [t for t in result.tables if t in _parent_tables(batch.screen)]
        for table in parents + [t for t in result.tables if t not in parents]:
            batch.write(table, to_table(row_types[table], result.tables[table]))
        batch.reject(result.rejected)
        return batch.finish(
            result.records_read,
            coverage=result.coverage,
            stated_extraction=result.extracted_at,
            stated_basis=result.extracted_at_basis,
            warnings=result.warnings,
        )


def _parent_tables(screen: Screen | None) -> set[str]:
    """Tables whose failed rows hold back a dependent table's: written first."""
    return {parent for parent, _ in screen.dependents.values()} if screen else set()
