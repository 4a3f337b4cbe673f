"""The raw store: `<home>/raw/<table>/`, one Parquet file per batch and table, with its own
tables (the batch manifests, the quarantine and the decisions about it), its layout and its
lock. extractors.landing is the one writer of batches into it.

dbt staging only reads rows whose batch has a manifest, so a crash mid-write never exposes
half a batch; what an interrupted writer left is swept (`sweep_interrupted`). The batch id is
a hash of the source, the parse options and the content, so landing the same content twice
is a no-op.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import hashlib
import importlib
import pkgutil
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from extractors.records import arrow_schema

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


def landed_schema(table: str, record_type: type) -> pa.Schema:
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
        schema = landed_schema(table, record_type)
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
    return batch_identity(source, options, [content])[0]


def batch_identity(source: str, options: str, blocks: Iterable[bytes]) -> tuple[str, str]:
    """(batch id, content sha256) of content read as `blocks`, without holding it whole."""
    digest, content = batch_hasher(source, options), hashlib.sha256()
    for block in blocks:
        digest.update(block)
        content.update(block)
    return digest.hexdigest()[:24], content.hexdigest()


def batch_hasher(source: str, options: str) -> hashlib._Hash:
    """The digest a batch id is the first 24 hex digits of, fed all but the content (a file
    read in pieces feeds it piece by piece)."""
    digest = hashlib.sha256()
    for part in (source.encode(), b"\0", options.encode(), b"\0"):
        digest.update(part)
    return digest


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
