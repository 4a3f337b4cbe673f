"""The files every close writes beside the ledger tables, for a reviewer without the
warehouse: `<home>/ledger/<period>/<close_id>.parquet` (the lines, as text) and `.json` (the
close's identity, hashes and the reconciliation checks it passed)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from gpuledger.core.checks import CheckResult
from gpuledger.core.ledger.records import Close


def write_close_evidence(
    home: Path,
    close: Close,
    columns: Sequence[str],
    lines: Sequence[tuple],
    policy_hash: str,
    rate_versions: str,
    schema_version: str,
    checks: Sequence[CheckResult],
) -> None:
    folder = home / "ledger" / close.period
    folder.mkdir(parents=True, exist_ok=True)
    table = pa.table(
        {
            name: [str(r[i]) if r[i] is not None else None for r in lines]
            for i, name in enumerate(columns)
        },
        schema=pa.schema([(name, pa.string()) for name in columns]),
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
        "schema_version": schema_version,
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
