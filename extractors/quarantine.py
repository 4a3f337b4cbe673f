"""The raw store's quarantine: what a batch held back, and what users decided about it.

Every record a batch did not land is a row of the raw `quarantine` table (its batch, file,
line, field, reason and the raw record). A user reviews them (`gpuledger quarantine list`)
and decides, each decision an appended row of the raw `quarantine_decisions` table:
- acknowledge (with a reason): the record stays out, and the close of a period its batch
  covers is no longer blocked by it; the close records the acknowledgement;
- release (with a reason): a record the parser read but an expectation held back lands as
  a new batch as it was parsed (with the records held back because of it: a job's steps), so
  it counts from the next build.
A record the parser could not read cannot be released: fix the file and ingest it again.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import importlib
import json
import shutil
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq

from extractors.landing import LandingReport, land
from extractors.rawstore import (
    BATCHES_TABLE,
    DECISIONS_TABLE,
    QUARANTINE_TABLE,
    BatchRow,
    QuarantineDecision,
    QuarantineRow,
    batch_files,
    raw_dir,
    raw_store_lock,
    raw_tables,
    read_manifest,
    write_parquet_atomic,
)
from extractors.records import ParseResult, to_table

ACKNOWLEDGE = "acknowledge"
RELEASE = "release"
RELEASE_OPTION = "release:"  # the options of a batch a release landed, before the batch id


class QuarantineError(ValueError):
    """A decision cannot be taken; the message says why and what to do instead."""


@dataclass(frozen=True)
class QuarantinedRecord:
    row: QuarantineRow
    decision: QuarantineDecision | None

    @property
    def status(self) -> str:
        if self.decision is None:
            return "open"
        return "acknowledged" if self.decision.decision == ACKNOWLEDGE else "released"


def _read(folder: Path) -> list[dict]:
    return [r for path in batch_files(folder) for r in pq.read_table(path).to_pylist()]


def quarantined(home: Path, batch_id: str | None = None) -> list[QuarantinedRecord]:
    """Every quarantined record (of one batch), with the latest decision about it."""
    rows = [
        QuarantineRow(**r)
        for r in _read(raw_dir(home) / QUARANTINE_TABLE)
        if batch_id is None or r["batch_id"] == batch_id
    ]
    decided = {}
    for record in sorted(_read(raw_dir(home) / DECISIONS_TABLE), key=lambda r: r["decided_at"]):
        decided[(record["batch_id"], record["line"])] = QuarantineDecision(**record)
    return [
        QuarantinedRecord(row, decided.get((row.batch_id, row.line)))
        for row in sorted(rows, key=lambda r: (r.batch_id, r.line))
    ]


def _select(home: Path, batch_id: str, lines: Sequence[int]) -> list[QuarantinedRecord]:
    records = quarantined(home, batch_id)
    if not records:
        raise QuarantineError(f"batch {batch_id} has no quarantined record")
    wanted = set(lines) or {r.row.line for r in records}
    chosen = [r for r in records if r.row.line in wanted]
    missing = sorted(wanted - {r.row.line for r in chosen})
    if missing:
        raise QuarantineError(
            f"batch {batch_id} has no quarantined record at line(s) {', '.join(map(str, missing))}"
        )
    decided = [r for r in chosen if r.decision is not None]
    if decided:
        first = decided[0]
        raise QuarantineError(
            f"{first.row.file}:{first.row.line} is already {first.status} "
            f"({first.decision.reason!r} by {first.decision.decided_by})"
        )
    return chosen


def _record(home: Path, decisions: Iterable[QuarantineDecision]) -> None:
    decisions = list(decisions)
    digest = hashlib.sha256("".join(d.decision_id for d in decisions).encode()).hexdigest()[:24]
    folder = raw_dir(home) / DECISIONS_TABLE
    folder.mkdir(parents=True, exist_ok=True)
    write_parquet_atomic(to_table(QuarantineDecision, decisions), folder / f"{digest}.parquet")


def _decision(kind: str, row: QuarantineRow, reason: str, by: str, released: str | None):
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0)
    key = f"{kind}\0{row.batch_id}\0{row.line}\0{now.isoformat()}"
    return QuarantineDecision(
        decision_id=hashlib.sha256(key.encode()).hexdigest()[:24],
        decision=kind,
        batch_id=row.batch_id,
        line=row.line,
        reason=reason,
        decided_by=by,
        decided_at=now,
        released_batch_id=released,
    )


def acknowledge(
    home: Path, batch_id: str, lines: Sequence[int], reason: str, by: str
) -> list[QuarantinedRecord]:
    """Acknowledge records of a batch (every open one when `lines` is empty)."""
    if not reason.strip():
        raise QuarantineError("an acknowledgement needs a --reason")
    with raw_store_lock(home):
        chosen = _select(home, batch_id, lines)
        _record(home, (_decision(ACKNOWLEDGE, r.row, reason, by, None) for r in chosen))
    return chosen


def _typed(record_type: type, values: Mapping[str, object]) -> object:
    hints = typing.get_type_hints(record_type)
    fields = {}
    for field in dataclasses.fields(record_type):
        value = values.get(field.name)
        base = next((a for a in typing.get_args(hints[field.name]) if a is not type(None)), None)
        if isinstance(value, str) and dt.datetime in (hints[field.name], base):
            value = dt.datetime.fromisoformat(value)
        fields[field.name] = value
    return record_type(**fields)


def release(home: Path, batch_id: str, lines: Sequence[int], reason: str, by: str) -> LandingReport:
    """Land held-back records of a batch as they were parsed (with the records held back
    because of them), as a new batch that names the release."""
    if not reason.strip():
        raise QuarantineError("a release needs a --reason")
    manifest = read_manifest(home, batch_id)
    if manifest is None:
        raise QuarantineError(f"no batch {batch_id} has landed")
    chosen = _select(home, batch_id, lines)
    chosen += _dependents(home, manifest.source, chosen)
    tables = raw_tables()
    result = ParseResult(records_read=len(chosen))
    for record in chosen:
        table = _table_of(record)
        if table not in tables or not record.row.raw.startswith("{"):
            raise QuarantineError(
                f"{record.row.file}:{record.row.line} cannot be released: it was never parsed "
                f"({record.row.reason}); fix the file and ingest it again"
            )
        result.add(table, _typed(tables[table], json.loads(record.row.raw)))
    content = json.dumps([r.row.raw for r in chosen], sort_keys=True).encode()
    report = land(
        home,
        source=manifest.source,
        file=f"release of {manifest.file} (batch {batch_id})",
        content=content,
        options=f"{RELEASE_OPTION}{batch_id}",
        result=result,
        row_types={t: tables[t] for t in result.tables},
        extracted_at=manifest.extracted_at,
        extracted_at_basis=manifest.extracted_at_basis or "none",
        validate=False,
    )
    with raw_store_lock(home):
        _record(home, (_decision(RELEASE, r.row, reason, by, report.batch_id) for r in chosen))
    return report


def is_release(batch: BatchRow) -> bool:
    """Whether the batch landed records a user released from quarantine."""
    return batch.options.startswith(RELEASE_OPTION)


def _table_of(record: QuarantinedRecord) -> str:
    return record.row.reason.split(":", 1)[0]


def _dependents(
    home: Path, source: str, chosen: list[QuarantinedRecord]
) -> list[QuarantinedRecord]:
    """The open records held back because of a chosen one (`QUARANTINED_WITH` of the source:
    a dependent table's row goes with the parent row of the same key)."""
    records = importlib.import_module(f"extractors.{source}.records")
    found = []
    for dependent, (parent, keys) in getattr(records, "QUARANTINED_WITH", {}).items():
        parents = {
            tuple(json.loads(c.row.raw).get(k) for k in keys)
            for c in chosen
            if _table_of(c) == parent and c.row.raw.startswith("{")
        }
        for record in quarantined(home, chosen[0].row.batch_id):
            if (
                record.decision is None
                and record not in chosen
                and _table_of(record) == dependent
                and tuple(json.loads(record.row.raw).get(k) for k in keys) in parents
            ):
                found.append(record)
    return found


def quarantine_batch(
    home: Path,
    batch: BatchRow,
    tables: Mapping[str, type],
    failing: Mapping[str, list[tuple[int, str, str]]],
    summary: str,
) -> None:
    """Take a landed batch out of the raw store after its validation failed: its table files
    move to `<home>/quarantine/validation/<batch_id>/`, each record goes to the quarantine
    table (with the failing expectation, or the batch's summary), and its manifest is
    rewritten with 0 records landed, so staging never reads it and re-landing stays a no-op.
    `failing` maps a table to its failing (row index, field, reason)."""
    with raw_store_lock(home):
        evidence = home / "quarantine" / "validation" / batch.batch_id
        evidence.mkdir(parents=True, exist_ok=True)
        now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        quarantined: dict[int, QuarantineRow] = {}
        for table in tables:
            path = raw_dir(home) / table / f"{batch.batch_id}.parquet"
            if not path.exists():
                continue
            rows = pq.read_table(path).to_pylist()
            reasons = {index: (field, reason) for index, field, reason in failing.get(table, [])}
            for index, row in enumerate(rows):
                line = row.get("source_line") or index + 1
                field, reason = reasons.get(index, ("batch", f"batch quarantined: {summary}"))
                if line in quarantined and field == "batch":
                    continue
                raw = json.dumps({k: v for k, v in row.items() if k != "batch_id"}, default=str)
                quarantined[line] = QuarantineRow(
                    batch.batch_id, batch.source, batch.file, line, field, reason, raw, now
                )
            shutil.copyfile(path, evidence / f"{table}.parquet")
        if quarantined:
            write_parquet_atomic(
                to_table(QuarantineRow, [quarantined[k] for k in sorted(quarantined)]),
                raw_dir(home) / QUARANTINE_TABLE / f"{batch.batch_id}-validation.parquet",
            )
        rewritten = dataclasses.replace(
            batch, records_landed=0, records_quarantined=batch.records_read, rows_written=0
        )
        write_parquet_atomic(
            to_table(BatchRow, [rewritten]),
            raw_dir(home) / BATCHES_TABLE / f"{batch.batch_id}.parquet",
        )
        for table in tables:
            (raw_dir(home) / table / f"{batch.batch_id}.parquet").unlink(missing_ok=True)
