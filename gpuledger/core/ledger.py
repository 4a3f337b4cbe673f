"""The published ledger: closes, their lines and input batches, reopens, validation records.

Everything here appends; nothing updates or deletes a published row. The tables live in the
warehouse's `ledger` schema (created by dbt's on-run-start, `macros/create_ledger_tables.sql`)
and every close also writes `<home>/ledger/<period>/<close_id>.parquet` and `.json`.

- `ledger.closes`: one row per close of a period (close_version 1, 2, ... after reopens).
- `ledger.chargeback_lines`: the lines each close published. A Correction line names the
  period and close it corrects (`corrects_period`, `corrects_close_id`).
- `ledger.close_batches`: the landed batches a close was computed from. A batch that is not
  among them and whose evidence overlaps the period is late data for that close.
- `ledger.reopens`: one row per reopen; the reopened close stays, the period is open again.

Validation records (`<home>/validations/batches/<batch_id>.parquet`, read by dbt as source
`ledger.batch_validations`) say whether a landed batch passed its expectation suites and which
time span its evidence covers; the late-data rule reads that span.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import json
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from extractors.landing import EMPTY_FILE, LEGACY_EMPTY_FILE, batch_files
from gpuledger.core.warehouse import connect

LINE_COLUMNS = (
    "charge_line_id",
    "period",
    "tenant_id",
    "charge_component",
    "gpu_class",
    "quantity",
    "unit",
    "unit_price",
    "amount",
    "currency",
    "rate_card_version",
    "confidence",
    "charge_class",
    "description",
    "corrects_period",
    "corrects_close_id",
)

VALIDATION_SCHEMA = pa.schema(
    [
        ("batch_id", pa.string()),
        ("source", pa.string()),
        ("outcome", pa.string()),
        ("validated_at", pa.timestamp("us")),
        ("first_evidence_at", pa.timestamp("us")),
        ("last_evidence_at", pa.timestamp("us")),
        ("failed_expectations", pa.string()),
        ("results_path", pa.string()),
    ]
)
VALIDATION_PASSED = "passed"
VALIDATION_QUARANTINED = "quarantined"


class LedgerError(RuntimeError):
    """The ledger refuses the operation; the message says why and what to do instead."""


@dataclass(frozen=True)
class CheckResult:
    check_name: str
    status: str
    is_blocking: bool
    observed_value: object
    limit_value: object
    unit: str
    detail: str

    @property
    def blocks(self) -> bool:
        return self.is_blocking and self.status == "fail"


@dataclass(frozen=True)
class Close:
    close_id: str
    period: str
    close_version: int
    closed_at: dt.datetime
    approver: str
    line_count: int
    total_amount: Decimal
    lines_sha256: str
    input_manifest_hash: str


@dataclass(frozen=True)
class Reopen:
    reopen_id: str
    period: str
    close_id: str
    close_version: int
    reopened_at: dt.datetime
    reason: str


@dataclass(frozen=True)
class BatchValidation:
    """The outcome of a landed batch's expectation suites and its evidence time span."""

    batch_id: str
    source: str
    outcome: str
    validated_at: dt.datetime
    first_evidence_at: dt.datetime | None
    last_evidence_at: dt.datetime | None
    failed_expectations: str
    results_path: str


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0)


def _has_table(con: duckdb.DuckDBPyConnection, schema: str, table: str) -> bool:
    found = con.execute(
        "select count(*) from information_schema.tables where table_schema = ? and table_name = ?",
        [schema, table],
    ).fetchone()
    return bool(found and found[0])


def _current_close(con: duckdb.DuckDBPyConnection, period: str) -> tuple | None:
    """The latest close of `period` unless a reopen followed it."""
    if not _has_table(con, "ledger", "closes"):
        return None
    row = con.execute(
        "select close_id, closed_at, approver, close_version from ledger.closes "
        "where period = ? order by close_version desc limit 1",
        [period],
    ).fetchone()
    if row is None:
        return None
    if _has_table(con, "ledger", "reopens"):
        reopened = con.execute(
            "select count(*) from ledger.reopens where close_id = ?", [row[0]]
        ).fetchone()[0]
        if reopened:
            return None
    return row


def existing_close(home: Path, period: str) -> dict[str, object] | None:
    """The close that holds `period` closed now (None when open or never closed)."""
    try:
        con = connect(home)
    except FileNotFoundError:
        return None
    with con:
        row = _current_close(con, period)
    if row is None:
        return None
    return {"close_id": row[0], "closed_at": row[1], "approver": row[2], "close_version": row[3]}


def already_closed_message(period: str, prior: dict[str, object]) -> str:
    return (
        f"period {period} is already closed (close {prior['close_id']} at "
        f"{prior['closed_at']} by {prior['approver']}); a closed period is never "
        "rewritten. Late data for it becomes adjustments in the next open period."
    )


def reconciliation(home: Path, period: str) -> tuple[CheckResult, ...]:
    with connect(home) as con:
        rows = con.execute(
            "select check_name, status, is_blocking, observed_value, limit_value, unit, detail "
            "from marts.fact_reconciliation where period = ? order by check_name",
            [period],
        ).fetchall()
    return tuple(CheckResult(*row) for row in rows)


def lines_hash(lines: list[tuple]) -> str:
    """sha256 of the lines as canonical CSV (LINE_COLUMNS, sorted by charge_line_id)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(LINE_COLUMNS)
    for line in sorted(lines, key=lambda r: str(r[0])):
        writer.writerow(["" if v is None else str(v) for v in line])
    return hashlib.sha256(out.getvalue().encode()).hexdigest()


def published_lines(home: Path, close_id: str) -> list[tuple]:
    """The lines a close published, as stored in the ledger (LINE_COLUMNS order)."""
    with connect(home) as con:
        return con.execute(
            f"select {', '.join(LINE_COLUMNS)} from ledger.chargeback_lines where close_id = ?",
            [close_id],
        ).fetchall()


def _batches_hash(batches: list[tuple]) -> str:
    digest = hashlib.sha256()
    for batch_id, content_sha256 in batches:
        digest.update(f"{batch_id}:{content_sha256}\n".encode())
    return digest.hexdigest()


def _lines_to_publish(con: duckdb.DuckDBPyConnection, period: str) -> list[tuple]:
    """The period's provisional lines as the mart serves them, Corrections with their reference."""
    return con.execute(
        f"select {', '.join(LINE_COLUMNS)} from marts.fact_chargeback "
        "where period = ? and status = 'provisional'",
        [period],
    ).fetchall()


def publish(home: Path, period: str, approver: str, checks: tuple[CheckResult, ...]) -> Close:
    """Append the period's provisional lines to the ledger as its next close version.

    The caller holds the home lock and has verified that the period is open and that its
    blocking reconciliation checks pass. The input batches are those the build read
    (`staging.stg_landing__batches`), so the manifest hash describes what was computed.
    """
    policy_hash = (home / "policy" / "POLICY_HASH").read_text().strip()
    closed_at = _now()
    with connect(home, read_only=False) as con:
        lines = _lines_to_publish(con, period)
        batches = con.execute(
            "select batch_id, content_sha256 from staging.stg_landing__batches order by batch_id"
        ).fetchall()
        lines_sha = lines_hash(lines)
        input_hash = _batches_hash(batches)
        version = con.execute(
            "select coalesce(max(close_version), 0) + 1 from ledger.closes where period = ?",
            [period],
        ).fetchone()[0]
        close_id = f"close-{period}-v{version}-{lines_sha[:10]}"
        rate_versions = ",".join(sorted({str(r[10]) for r in lines if r[10] is not None}))
        total = sum((r[8] for r in lines), start=Decimal(0))
        con.execute("begin transaction")
        con.execute(
            "insert into ledger.closes values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                close_id,
                period,
                version,
                closed_at,
                approver,
                policy_hash,
                rate_versions,
                schema_version(),
                input_hash,
                lines_sha,
                len(lines),
                total,
            ],
        )
        columns = ", ".join(LINE_COLUMNS)
        con.executemany(
            f"insert into ledger.chargeback_lines ({columns}, status, close_id) "
            f"values ({', '.join('?' for _ in LINE_COLUMNS)}, 'closed', ?)",
            [[*line, close_id] for line in lines],
        )
        if batches:
            con.executemany(
                "insert into ledger.close_batches values (?, ?, ?)",
                [[close_id, batch_id, sha] for batch_id, sha in batches],
            )
        con.execute("commit")
    close = Close(
        close_id=close_id,
        period=period,
        close_version=version,
        closed_at=closed_at,
        approver=approver,
        line_count=len(lines),
        total_amount=total,
        lines_sha256=lines_sha,
        input_manifest_hash=input_hash,
    )
    _write_evidence(home, close, lines, policy_hash, rate_versions, checks)
    return close


def _write_evidence(
    home: Path,
    close: Close,
    lines: list[tuple],
    policy_hash: str,
    rate_versions: str,
    checks: tuple[CheckResult, ...],
) -> None:
    folder = home / "ledger" / close.period
    folder.mkdir(parents=True, exist_ok=True)
    table = pa.table(
        {
            name: [str(r[i]) if r[i] is not None else None for r in lines]
            for i, name in enumerate(LINE_COLUMNS)
        },
        schema=pa.schema([(name, pa.string()) for name in LINE_COLUMNS]),
    )
    pq.write_table(table, folder / f"{close.close_id}.parquet")
    manifest = {
        "close_id": close.close_id,
        "period": close.period,
        "close_version": close.close_version,
        "closed_at": close.closed_at.isoformat() + "Z",
        "approver": close.approver,
        "policy_hash": policy_hash,
        "rate_card_version": rate_versions,
        "schema_version": schema_version(),
        "input_batch_manifest_hash": close.input_manifest_hash,
        "lines_sha256": close.lines_sha256,
        "line_count": close.line_count,
        "total_amount": str(close.total_amount),
        "checks": [
            {"check": c.check_name, "status": c.status, "observed": str(c.observed_value)}
            for c in checks
        ],
    }
    (folder / f"{close.close_id}.json").write_text(json.dumps(manifest, indent=2) + "\n")


def reopen(home: Path, period: str, reason: str, requested_by: str) -> Reopen:
    """Record a reopen of the period's current close (the caller holds the home lock).

    Refused when the period is not closed, or when a later close that still stands (not
    reopened) published corrections of this close: re-closing would then charge that late
    evidence twice.
    """
    if not reason.strip():
        raise LedgerError("a reopen needs a --reason")
    with connect(home, read_only=False) as con:
        current = _current_close(con, period)
        if current is None:
            raise LedgerError(f"period {period} is not closed; there is nothing to reopen")
        close_id, _, _, version = current
        settled = con.execute(
            "select distinct lines.close_id from ledger.chargeback_lines as lines "
            "where lines.corrects_close_id = ? and lines.close_id not in "
            "(select reopens.close_id from ledger.reopens as reopens) order by 1",
            [close_id],
        ).fetchall()
        if settled:
            names = ", ".join(r[0] for r in settled)
            raise LedgerError(
                f"close {close_id} of {period} cannot be reopened: corrections of it are already "
                f"published by {names}; reopening would charge that late evidence twice"
            )
        reopened_at = _now()
        reopen_id = f"reopen-{period}-v{version}"
        con.execute(
            "insert into ledger.reopens values (?, ?, ?, ?, ?, ?)",
            [reopen_id, period, close_id, reopened_at, reason, requested_by],
        )
    return Reopen(reopen_id, period, close_id, version, reopened_at, reason)


def schema_version() -> str:
    import yaml

    from gpuledger.core.home import PROJECT_DIR

    project = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text())
    return str(project["vars"]["schema_version"])


def validations_dir(home: Path) -> Path:
    return home / "validations"


def _validation_records_dir(home: Path) -> Path:
    return validations_dir(home) / "batches"


def ensure_validation_layout(home: Path) -> None:
    """A zero-row record file, so dbt can read the source before any batch was validated."""
    folder = _validation_records_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / LEGACY_EMPTY_FILE).unlink(missing_ok=True)  # a name Spark's listing skips
    empty = folder / EMPTY_FILE
    if not empty.exists():
        pq.write_table(pa.Table.from_pylist([], schema=VALIDATION_SCHEMA), empty)


def write_validation(home: Path, record: BatchValidation) -> None:
    ensure_validation_layout(home)
    path = _validation_records_dir(home) / f"{record.batch_id}.parquet"
    tmp = path.with_suffix(".parquet.tmp")
    pq.write_table(
        pa.Table.from_pylist([record.__dict__], schema=VALIDATION_SCHEMA),
        tmp,
    )
    tmp.replace(path)


def validated_batch_ids(home: Path) -> set[str]:
    folder = _validation_records_dir(home)
    if not folder.exists():
        return set()
    return {p.stem for p in batch_files(folder)}
