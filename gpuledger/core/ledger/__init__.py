"""The published ledger: closes, their lines and input batches, reopens.

Everything here appends; nothing updates or deletes a published row. The tables live in the
warehouse's `ledger` schema (created by dbt's on-run-start, macros/create_ledger_tables.sql,
from the one column list in schema.py) and every close also writes
`<home>/ledger/<period>/<close_id>.parquet` and `.json` (evidence.py).

- `ledger.closes`: one row per close of a period (close_version 1, 2, ... after reopens).
- `ledger.chargeback_lines`: the lines each close published, as marts.fact_chargeback serves
  them. A Correction line names the period and close it corrects.
- `ledger.close_batches`: the landed batches a close was computed from. A batch that is not
  among them and whose evidence overlaps the period is late data for that close.
- `ledger.reopens`: one row per reopen; the reopened close stays, the period is open again.
"""

from gpuledger.core.ledger.closes import (
    current_close,
    finish_publication,
    ledger_version,
    lines_hash,
    publication_finished,
    publish,
    published_lines,
    refresh_ledger_marts,
    reopen,
    stamp_build,
)
from gpuledger.core.ledger.records import Close, LedgerError, Reopen

__all__ = [
    "Close",
    "LedgerError",
    "Reopen",
    "current_close",
    "finish_publication",
    "ledger_version",
    "lines_hash",
    "publication_finished",
    "publish",
    "published_lines",
    "refresh_ledger_marts",
    "reopen",
    "stamp_build",
]
