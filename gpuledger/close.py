"""Close a period: build, run the blocking reconciliation checks, publish append-only.

A close publishes only when every blocking check passes. The published lines go to the
`ledger` schema (which dbt never rebuilds) and to a Parquet file with a manifest beside it;
`fact_chargeback` then serves the closed period from the ledger, so a later build can never
rewrite it. A period already closed is refused.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from extractors.landing import batch_manifest, home_lock
from gpuledger.warehouse import BUILD_ARGS, connect, prepare, run_dbt

EXIT_PUBLISHED = 0
EXIT_BLOCKED = 3
EXIT_ALREADY_CLOSED = 4

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
)


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
class CloseOutcome:
    exit_code: int
    period: str
    message: str
    checks: tuple[CheckResult, ...] = ()
    close_id: str | None = None


def existing_close(home: Path, period: str) -> dict[str, object] | None:
    try:
        con = connect(home)
    except FileNotFoundError:
        return None
    with con:
        tables = con.execute(
            "select count(*) from information_schema.tables "
            "where table_schema = 'ledger' and table_name = 'closes'"
        ).fetchone()[0]
        if not tables:
            return None
        row = con.execute(
            "select close_id, closed_at, approver from ledger.closes where period = ? "
            "order by close_version desc limit 1",
            [period],
        ).fetchone()
    if row is None:
        return None
    return {"close_id": row[0], "closed_at": row[1], "approver": row[2]}


def reconciliation(home: Path, period: str) -> tuple[CheckResult, ...]:
    with connect(home) as con:
        rows = con.execute(
            "select check_name, status, is_blocking, observed_value, limit_value, unit, detail "
            "from marts.fact_reconciliation where period = ? order by check_name",
            [period],
        ).fetchall()
    return tuple(CheckResult(*row) for row in rows)


def _canonical_lines_hash(lines: list[tuple]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(LINE_COLUMNS)
    for line in sorted(lines, key=lambda r: str(r[0])):
        writer.writerow(["" if v is None else str(v) for v in line])
    return hashlib.sha256(out.getvalue().encode()).hexdigest()


def manifest_hash(home: Path) -> str:
    digest = hashlib.sha256()
    for batch in batch_manifest(home):
        digest.update(f"{batch.batch_id}:{batch.content_sha256}\n".encode())
    return digest.hexdigest()


def close_period(home: Path, policy_dir: Path, period: str, approver: str) -> CloseOutcome:
    with home_lock(home):
        prior = existing_close(home, period)
        if prior is not None:
            return CloseOutcome(
                EXIT_ALREADY_CLOSED,
                period,
                f"period {period} is already closed (close {prior['close_id']} at "
                f"{prior['closed_at']} by {prior['approver']}); a closed period is never "
                "rewritten. Late data for it becomes adjustments in the next open period.",
            )
        policy = prepare(home, policy_dir)
        run_dbt(home, BUILD_ARGS)
        checks = reconciliation(home, period)
        if not checks:
            return CloseOutcome(
                EXIT_BLOCKED, period, f"period {period} has no evidence or policy to close"
            )
        failing = [c for c in checks if c.blocks]
        if failing:
            names = ", ".join(c.check_name for c in failing)
            return CloseOutcome(
                EXIT_BLOCKED,
                period,
                f"close of {period} BLOCKED by {len(failing)} failing check(s): {names}; "
                "provisional showback is still available (gpuledger report)",
                checks,
            )
        close_id = _publish(home, period, approver, policy.hash, checks)
        run_dbt(home, ["run", "--select", "fact_chargeback+"])
        return CloseOutcome(
            EXIT_PUBLISHED,
            period,
            f"period {period} closed and published as {close_id}",
            checks,
            close_id,
        )


def _publish(
    home: Path, period: str, approver: str, policy_hash: str, checks: tuple[CheckResult, ...]
) -> str:
    closed_at = dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0)
    columns = ", ".join(LINE_COLUMNS)
    with connect(home, read_only=False) as con:
        lines = con.execute(
            f"select {columns} from marts.fact_chargeback where period = ? "
            "and status = 'provisional'",
            [period],
        ).fetchall()
        lines_sha = _canonical_lines_hash(lines)
        input_hash = manifest_hash(home)
        version = con.execute(
            "select coalesce(max(close_version), 0) + 1 from ledger.closes where period = ?",
            [period],
        ).fetchone()[0]
        close_id = f"close-{period}-v{version}-{lines_sha[:10]}"
        rate_versions = ",".join(sorted({str(r[10]) for r in lines if r[10] is not None}))
        total = sum((r[8] for r in lines), start=0)
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
                _schema_version(),
                input_hash,
                lines_sha,
                len(lines),
                total,
            ],
        )
        con.executemany(
            f"insert into ledger.chargeback_lines ({columns}, status, close_id) "
            f"values ({', '.join('?' for _ in LINE_COLUMNS)}, 'closed', ?)",
            [[*line, close_id] for line in lines],
        )
        con.execute("commit")
    _write_evidence(
        home,
        period,
        close_id,
        lines,
        {
            "close_id": close_id,
            "period": period,
            "close_version": version,
            "closed_at": closed_at.isoformat() + "Z",
            "approver": approver,
            "policy_hash": policy_hash,
            "rate_card_version": rate_versions,
            "schema_version": _schema_version(),
            "input_batch_manifest_hash": input_hash,
            "lines_sha256": lines_sha,
            "line_count": len(lines),
            "total_amount": str(total),
            "checks": [
                {"check": c.check_name, "status": c.status, "observed": str(c.observed_value)}
                for c in checks
            ],
        },
    )
    return close_id


def _write_evidence(
    home: Path, period: str, close_id: str, lines: list[tuple], manifest: dict[str, object]
) -> None:
    folder = home / "ledger" / period
    folder.mkdir(parents=True, exist_ok=True)
    table = pa.table(
        {
            name: [str(r[i]) if r[i] is not None else None for r in lines]
            for i, name in enumerate(LINE_COLUMNS)
        }
    )
    pq.write_table(table, folder / f"{close_id}.parquet")
    (folder / f"{close_id}.json").write_text(json.dumps(manifest, indent=2) + "\n")


def _schema_version() -> str:
    import yaml

    from gpuledger.paths import PROJECT_DIR

    project = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text())
    return str(project["vars"]["schema_version"])
