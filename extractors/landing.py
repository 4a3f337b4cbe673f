"""The one writer of raw batches.

Every extractor hands its parse result here. A batch is written as one Parquet file per raw
table under `<home>/raw/<table>/<batch_id>.parquet`, its rejected records to
`<home>/raw/quarantine/<batch_id>.parquet`, and last a manifest row to
`<home>/raw/batches/<batch_id>.parquet`. dbt staging only reads rows whose batch has a
manifest, so a crash mid-write never exposes half a batch. The batch id is a hash of the
source, the parse options and the content, so landing the same content twice is a no-op.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import hashlib
import importlib
import pkgutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from extractors import crashpoints
from extractors.records import ParseResult, Rejected, arrow_schema, to_table
from extractors.screening import covers_time, evidence_span, extraction, held_back

BATCHES_TABLE = "batches"
QUARANTINE_TABLE = "quarantine"
# a user's decisions about quarantined records (extractors.quarantine)
DECISIONS_TABLE = "quarantine_decisions"
# the tables whose files are not batch files of one batch (named by batch id)
OWN_TABLES = (BATCHES_TABLE, DECISIONS_TABLE)
# zero-row schema file of each raw table; not `_`-prefixed, which Spark's file listing skips
EMPTY_FILE = "schema.parquet"


@dataclass(frozen=True)
class BatchRow:
    """The manifest of one landed batch."""

    batch_id: str
    source: str
    file: str
    content_sha256: str
    options: str
    extracted_at: dt.datetime | None
    landed_at: dt.datetime
    records_read: int
    records_landed: int
    records_quarantined: int
    rows_written: int
    # option (--extracted-at) | live_clock | what the format says (e.g. sacct_elapsed) |
    # latest_evidence (the latest time among the rows) | none (no time at all)
    extracted_at_basis: str | None = None
    # the span the batch's evidence covers: the format's (sacct window, query range,
    # sampler run) or, basis `evidence`, the rows' earliest to latest time (an interval still
    # open reaches the extraction instant)
    coverage_start_at: dt.datetime | None = None
    coverage_end_at: dt.datetime | None = None
    coverage_basis: str | None = None


@dataclass(frozen=True)
class QuarantineRow:
    batch_id: str
    source: str
    file: str
    line: int
    field: str
    reason: str
    raw: str
    quarantined_at: dt.datetime


@dataclass(frozen=True)
class QuarantineDecision:
    """Acknowledge or release one quarantined record (extractors.quarantine)."""

    decision_id: str
    decision: str  # acknowledge | release
    batch_id: str
    line: int
    reason: str
    decided_by: str
    decided_at: dt.datetime
    released_batch_id: str | None


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


def raw_tables() -> dict[str, type]:
    """Every raw table any extractor declares (`RAW_TABLES` in `extractors/<source>/records.py`)."""
    import extractors

    tables: dict[str, type] = {
        BATCHES_TABLE: BatchRow,
        QUARANTINE_TABLE: QuarantineRow,
        DECISIONS_TABLE: QuarantineDecision,
    }
    for module in pkgutil.iter_modules(extractors.__path__):
        if not module.ispkg:
            continue
        try:
            records = importlib.import_module(f"extractors.{module.name}.records")
        except ModuleNotFoundError:
            continue
        tables.update(getattr(records, "RAW_TABLES", {}))
    return tables


def _landed_schema(table: str, record_type: type) -> pa.Schema:
    """A record's schema plus the `batch_id` every evidence row carries."""
    schema = arrow_schema(record_type)
    if table in (BATCHES_TABLE, QUARANTINE_TABLE, DECISIONS_TABLE):
        return schema
    return schema.append(pa.field("batch_id", pa.string()))


def raw_dir(home: Path) -> Path:
    return home / "raw"


def batch_files(folder: Path) -> list[Path]:
    """The batch files of a raw table (or validation record) folder: every Parquet file but
    the zero-row schema file."""
    return sorted(p for p in folder.glob("*.parquet") if p.name != EMPTY_FILE)


def ensure_layout(home: Path) -> None:
    """Create every raw table folder with a zero-row file, so dbt can read empty sources."""
    for table, record_type in raw_tables().items():
        folder = raw_dir(home) / table
        folder.mkdir(parents=True, exist_ok=True)
        empty = folder / EMPTY_FILE
        schema = _landed_schema(table, record_type)
        if not empty.exists() or pq.read_schema(empty) != schema:
            write_parquet_atomic(pa.Table.from_pylist([], schema=schema), empty)


@contextmanager
def raw_store_lock(home: Path, *, shared: bool = False) -> Iterator[None]:
    """The raw store's lock: landing (and rewriting a manifest) takes it exclusively; a build
    holds it shared while dbt reads the raw tables, so no batch lands in the middle of one."""
    folder = raw_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / ".lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def batch_id_for(source: str, options: str, content: bytes) -> str:
    digest = hashlib.sha256()
    for part in (source.encode(), b"\0", options.encode(), b"\0", content):
        digest.update(part)
    return digest.hexdigest()[:24]


def write_parquet_atomic(table: pa.Table, path: Path) -> None:
    """Write `table` to `path` so that a reader sees the old file or the whole new one."""
    tmp = path.with_suffix(".parquet.tmp")
    pq.write_table(table, tmp)
    tmp.replace(path)


def read_manifest(home: Path, batch_id: str) -> BatchRow | None:
    path = raw_dir(home) / BATCHES_TABLE / f"{batch_id}.parquet"
    if not path.exists():
        return None
    row = pq.read_table(path).to_pylist()[0]
    return BatchRow(**row)


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
    validate: bool = True,
) -> LandingReport:
    """Write one parsed batch (idempotent). `row_types` maps each raw table to its record type.
    `extracted_at` is the instant the caller knows the evidence was read (an --extracted-at
    option, the live clock: `extracted_at_basis`); else the format's or the rows' own.
    `validate=False` lands every row as parsed (a release from quarantine: the user decided)."""
    batch_id = batch_id_for(source, options, content)
    with raw_store_lock(home):
        ensure_layout(home)
        existing = read_manifest(home, batch_id)
        if existing is not None:
            return LandingReport(
                batch_id=batch_id,
                source=source,
                file=file,
                records_read=existing.records_read,
                records_landed=existing.records_landed,
                records_quarantined=existing.records_quarantined,
                rows_by_table={},
                already_landed=True,
            )
        now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        undeclared = sorted(set(result.tables) - set(row_types))
        if undeclared:
            raise KeyError(f"parser produced rows for undeclared raw tables {undeclared}")
        tables = {name: to_table(row_types[name], rows) for name, rows in result.tables.items()}
        held = held_back(source, tables, row_types) if validate else {}
        extracted = extraction(result, tables, extracted_at, extracted_at_basis)
        coverage = (
            result.coverage or evidence_span(tables, row_types, extracted)
            if covers_time(source)
            else None
        )
        rows_by_table: dict[str, int] = {}
        held_lines = pa.array(sorted(held), pa.int64())
        for name, table in tables.items():
            landed = table.filter(pc.invert(pc.is_in(table["source_line"], held_lines)))
            landed = landed.append_column(
                "batch_id", pa.array([batch_id] * landed.num_rows, pa.string())
            )
            write_parquet_atomic(landed, raw_dir(home) / name / f"{batch_id}.parquet")
            rows_by_table[name] = landed.num_rows
        rejected = [
            *result.rejected,
            *(held[line] for line in sorted(held)),
        ]
        quarantined_lines = {r.line for r in rejected}
        quarantine = [
            QuarantineRow(batch_id, source, file, r.line, r.field, r.reason, r.raw, now)
            for r in rejected
        ]
        if quarantine:
            write_parquet_atomic(
                to_table(QuarantineRow, quarantine),
                raw_dir(home) / QUARANTINE_TABLE / f"{batch_id}.parquet",
            )
        manifest = BatchRow(
            batch_id=batch_id,
            source=source,
            file=file,
            content_sha256=hashlib.sha256(content).hexdigest(),
            options=options,
            extracted_at=extracted.end if extracted else None,
            landed_at=now,
            records_read=result.records_read,
            records_landed=result.records_read - len(quarantined_lines),
            records_quarantined=len(quarantined_lines),
            rows_written=sum(rows_by_table.values()),
            extracted_at_basis=extracted.basis if extracted else "none",
            coverage_start_at=coverage.start if coverage else None,
            coverage_end_at=coverage.end if coverage else None,
            coverage_basis=coverage.basis if coverage else None,
        )
        crashpoints.reached("ingest:before-manifest")
        write_parquet_atomic(
            to_table(BatchRow, [manifest]), raw_dir(home) / BATCHES_TABLE / f"{batch_id}.parquet"
        )
    return LandingReport(
        batch_id=batch_id,
        source=source,
        file=file,
        records_read=manifest.records_read,
        records_landed=manifest.records_landed,
        records_quarantined=manifest.records_quarantined,
        rows_by_table=rows_by_table,
        already_landed=False,
        rejected=tuple(rejected),
        warnings=tuple(result.warnings),
    )


def sweep_interrupted(home: Path) -> list[str]:
    """Move what an interrupted writer left in the raw store (temporary files, and table files
    of a batch whose manifest was never written) to `<home>/quarantine/interrupted/`, and say
    what moved. Under the raw store's lock no writer is active, so all of it is orphaned.
    A home with no raw store yet is left as it is (a failed first ingest creates nothing)."""
    if not raw_dir(home).exists():
        return []
    with raw_store_lock(home):
        root = raw_dir(home)
        manifested = {p.stem for p in (root / BATCHES_TABLE).glob("*.parquet")}
        orphans = [p for p in root.rglob("*.tmp") if p.is_file()]
        evidence = (f for f in root.iterdir() if f.is_dir() and f.name not in OWN_TABLES)
        for folder in evidence:
            orphans.extend(p for p in batch_files(folder) if p.stem.split("-")[0] not in manifested)
        if not orphans:
            return []
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%f")
        target = home / "quarantine" / "interrupted" / stamp
        moved = []
        for path in sorted(orphans):
            destination = target / path.relative_to(root)
            destination.parent.mkdir(parents=True, exist_ok=True)
            path.replace(destination)
            moved.append(f"{path.relative_to(home)} -> {destination.relative_to(home)}")
        return moved


def batch_manifest(home: Path) -> list[BatchRow]:
    folder = raw_dir(home) / BATCHES_TABLE
    if not folder.exists():
        return []
    rows = []
    for path in sorted(folder.glob("*.parquet")):
        rows.extend(BatchRow(**r) for r in pq.read_table(path).to_pylist())
    return sorted(rows, key=lambda r: r.batch_id)
