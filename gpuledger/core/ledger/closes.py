"""Closes and reopens: append a period's lines as its next close version, reopen a close.

The caller holds the home lock (gpuledger.core.home.home_lock) around every write here, and
has passed the close gate (gpuledger.core.gate) before `publish`.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path

import duckdb
import yaml

from extractors import crashpoints
from gpuledger.core.checks import CheckResult
from gpuledger.core.home import PROJECT_DIR
from gpuledger.core.ledger.evidence import evidence_manifest, write_close_evidence
from gpuledger.core.ledger.records import Close, LedgerError, Reopen
from gpuledger.core.ledger.schema import line_columns
from gpuledger.core.serving import Served, serve
from gpuledger.core.warehouse import connect, dbt_target, has_relation, run_dbt


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0)


def schema_version() -> str:
    project = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text())
    return str(project["vars"]["schema_version"])


def current_close(home: Path, period: str) -> Close | None:
    """The close that holds `period` closed now (None when open, never closed, or before the
    first build): `marts.dim_period`, a view over the ledger, says which."""
    try:
        con = connect(home)
    except FileNotFoundError:
        return None
    with con:
        if not has_relation(con, "marts", "dim_period"):
            return None
        row = con.execute(
            "select close_id, period, close_version, closed_at, approver, line_count, "
            "total_amount, lines_sha256, input_manifest_hash from marts.dim_period "
            "where period = ? and status = 'closed'",
            [period],
        ).fetchone()
    return None if row is None else Close(*row)


def ledger_version(con: duckdb.DuckDBPyConnection) -> int:
    """How many closes and reopens the ledger holds: it changes with every ledger write, so a
    build that recorded it (stamp_build) can tell whether the ledger moved since."""
    if not has_relation(con, "ledger", "closes"):
        return 0
    row = con.execute(
        "select (select count(*) from ledger.closes) + (select count(*) from ledger.reopens)"
    ).fetchone()
    return int(row[0])


def lines_hash(lines: Sequence[tuple]) -> str:
    """sha256 of the lines as canonical CSV (line_columns(), sorted by charge_line_id)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(line_columns())
    for line in sorted(lines, key=lambda r: str(r[0])):
        writer.writerow(["" if v is None else str(v) for v in line])
    return hashlib.sha256(out.getvalue().encode()).hexdigest()


def published_lines(home: Path, close_id: str) -> list[tuple]:
    """The lines a close published, as stored in the ledger (line_columns() order)."""
    with connect(home) as con:
        return con.execute(
            f"select {', '.join(line_columns())} from ledger.chargeback_lines where close_id = ?",
            [close_id],
        ).fetchall()


def _batches_hash(batches: list[tuple]) -> str:
    digest = hashlib.sha256()
    for batch_id, content_sha256 in batches:
        digest.update(f"{batch_id}:{content_sha256}\n".encode())
    return digest.hexdigest()


def _stamp_path(home: Path) -> Path:
    return dbt_target(home) / "ledger_version"


def stamp_build(home: Path) -> None:
    """Record the ledger version the marts are being built from (the caller holds the home
    lock and runs dbt next), so `publish` can tell whether the ledger moved since."""
    try:
        con = connect(home)
    except FileNotFoundError:
        version = 0
    else:
        with con:
            version = ledger_version(con)
    path = _stamp_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{version}\n")


def _built_ledger_version(home: Path) -> int | None:
    path = _stamp_path(home)
    return int(path.read_text()) if path.exists() else None


def refresh_ledger_marts(home: Path) -> Served:
    """Rebuild the marts that serve closed periods from the ledger after a ledger write, and
    serve the marts to readers again."""
    stamp_build(home)
    run_dbt(home, ["run", "--select", "fact_chargeback+"])
    return serve(home)


def _month_bounds(period: str) -> tuple[dt.datetime, dt.datetime]:
    start = dt.datetime.strptime(period, "%Y-%m")
    return start, (start + dt.timedelta(days=32)).replace(day=1)


def publish(home: Path, period: str, approver: str) -> Close:
    """Append the period's provisional lines (marts.fact_chargeback) to the ledger as its
    next close version, with the batches the build read (staging.stg_landing__batches), so
    the manifest hash describes what was computed. Refused when the ledger moved since the
    build (another close or a reopen): the lines, corrections above all, may be stale."""
    policy_hash = (home / "policy" / "POLICY_HASH").read_text().strip()
    closed_at = _now()
    columns = line_columns()
    with connect(home, read_only=False) as con:
        if ledger_version(con) != _built_ledger_version(home):
            raise LedgerError(
                f"the ledger changed since {period} was built (a close or reopen happened "
                "meanwhile); run the close again"
            )
        lines = con.execute(
            f"select {', '.join(columns)} from marts.fact_chargeback "
            "where period = ? and status = 'provisional'",
            [period],
        ).fetchall()
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
        rate_index = columns.index("rate_card_version")
        amount_index = columns.index("amount")
        rate_versions = ",".join(
            sorted({str(r[rate_index]) for r in lines if r[rate_index] is not None})
        )
        total = sum((r[amount_index] for r in lines), start=Decimal(0))
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
        con.executemany(
            f"insert into ledger.chargeback_lines ({', '.join(columns)}, status, close_id) "
            f"values ({', '.join('?' for _ in columns)}, 'closed', ?)",
            [[*line, close_id] for line in lines],
        )
        if batches:
            con.executemany(
                "insert into ledger.close_batches values (?, ?, ?)",
                [[close_id, batch_id, sha] for batch_id, sha in batches],
            )
        con.execute(
            "insert into ledger.close_acknowledgements "
            "select ?, batch_id, line_number, file_path, reason, decision_reason, decided_by, "
            "decided_at from marts.fact_quarantine where quarantine_status = 'acknowledged' "
            "and (coverage_start_at is null or (coverage_start_at < ? and coverage_end_at >= ?))",
            [close_id, *_month_bounds(period)[::-1]],
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
    return close


def finish_publication(home: Path, close: Close, checks: Sequence[CheckResult]) -> Served:
    """What follows the ledger write of a close: the marts serve it, then its evidence files
    are written (last: they say the publication finished). Safe to repeat after a crash."""
    crashpoints.reached("close:after-ledger-write")
    served = refresh_ledger_marts(home)
    write_close_evidence(home, close, checks)
    return served


def publication_finished(home: Path, close: Close) -> bool:
    return evidence_manifest(home, close).exists()


def reopen(home: Path, period: str, reason: str, requested_by: str) -> Reopen:
    """Record a reopen of the period's current close (the caller holds the home lock).

    Refused when the period is not closed, or when a later close that still stands (not
    reopened) published corrections of this close: re-closing would then charge that late
    evidence twice.
    """
    if not reason.strip():
        raise LedgerError("a reopen needs a --reason")
    current = current_close(home, period)
    if current is None:
        raise LedgerError(f"period {period} is not closed; there is nothing to reopen")
    with connect(home, read_only=False) as con:
        settled = con.execute(
            "select distinct lines.close_id from ledger.chargeback_lines as lines "
            "where lines.corrects_close_id = ? and lines.close_id not in "
            "(select reopens.close_id from ledger.reopens as reopens) order by 1",
            [current.close_id],
        ).fetchall()
        if settled:
            names = ", ".join(r[0] for r in settled)
            raise LedgerError(
                f"close {current.close_id} of {period} cannot be reopened: corrections of it are "
                f"already published by {names}; reopening would charge that late evidence twice"
            )
        reopened_at = _now()
        reopen_id = f"reopen-{period}-v{current.close_version}"
        con.execute(
            "insert into ledger.reopens values (?, ?, ?, ?, ?, ?)",
            [reopen_id, period, current.close_id, reopened_at, reason, requested_by],
        )
    return Reopen(reopen_id, period, current.close_id, current.close_version, reopened_at, reason)
