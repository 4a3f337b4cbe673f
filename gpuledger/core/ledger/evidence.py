"""The files a close leaves beside the ledger tables, for a reviewer without the warehouse:
`<home>/ledger/<period>/<close_id>.parquet` (the lines, as text) and `.json` (the close's
identity, hashes and the reconciliation checks it passed).

They are written last, after the marts serve the close, from what the ledger holds; so the
`.json` says a publication finished, and a close that stopped before it (a crash) is
finished by the next close of the period (gpuledger.core.gate: `unfinished`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from gpuledger.core.checks import CheckResult
from gpuledger.core.ledger.records import Close
from gpuledger.core.ledger.schema import line_columns
from gpuledger.core.warehouse import connect


def evidence_manifest(home: Path, close: Close) -> Path:
    return home / "ledger" / close.period / f"{close.close_id}.json"


def write_close_evidence(home: Path, close: Close, checks: Sequence[CheckResult]) -> None:
    columns = line_columns()
    with connect(home) as con:
        lines = con.execute(
            f"select {', '.join(columns)} from ledger.chargeback_lines where close_id = ? "
            "order by charge_line_id",
            [close.close_id],
        ).fetchall()
        acknowledged = con.execute(
            "select batch_id, line_number, file_path, reason, decision_reason, decided_by "
            "from ledger.close_acknowledgements where close_id = ? order by batch_id, line_number",
            [close.close_id],
        ).fetchall()
        policy_hash, rate_versions, schema_version = con.execute(
            "select policy_hash, rate_card_version, schema_version from ledger.closes "
            "where close_id = ?",
            [close.close_id],
        ).fetchone()
    manifest = evidence_manifest(home, close)
    manifest.parent.mkdir(parents=True, exist_ok=True)
    table = pa.table(
        {
            name: [str(r[i]) if r[i] is not None else None for r in lines]
            for i, name in enumerate(columns)
        },
        schema=pa.schema([(name, pa.string()) for name in columns]),
    )
    staged = manifest.with_suffix(".parquet.tmp")
    pq.write_table(table, staged)
    staged.replace(manifest.with_suffix(".parquet"))
    document = {
        "close_id": close.close_id,
        "period": close.period,
        "close_version": close.close_version,
        "closed_at": close.closed_at.isoformat() + "Z",
        "approver": close.approver,
        "policy_hash": policy_hash,
        "rate_card_version": rate_versions,
        "schema_version": schema_version,
        "input_batch_manifest_hash": close.input_manifest_hash,
        "lines_sha256": close.lines_sha256,
        "line_count": close.line_count,
        "total_amount": str(close.total_amount),
        "acknowledged_quarantine": [
            {"batch": b, "line": n, "file": f, "reason": r, "acknowledged": a, "by": by}
            for b, n, f, r, a, by in acknowledged
        ],
        "checks": [
            {"check": c.check_name, "status": c.status, "observed": str(c.observed_value)}
            for c in checks
        ],
    }
    staged = manifest.with_suffix(".json.tmp")
    staged.write_text(json.dumps(document, indent=2) + "\n")
    staged.replace(manifest)
