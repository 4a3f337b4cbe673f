"""The ledger's schema, declared once: a published charge line is a row of
`marts.fact_chargeback`, so its columns are that mart's contract
(models/marts/chargeback/_chargeback__models.yml). The ledger tables' DDL
(macros/create_ledger_tables.sql), the staging of published lines, the lines hash and the
close evidence files all read this one list.
"""

from __future__ import annotations

import functools

import yaml

from gpuledger.core.home import PROJECT_DIR

CHARGEBACK_CONTRACT = PROJECT_DIR / "models" / "marts" / "chargeback" / "_chargeback__models.yml"
# what a close adds to each line it publishes; not part of the line's content
PUBLICATION_COLUMNS = ("status", "close_id")


@functools.cache
def mart_columns() -> tuple[str, ...]:
    """Every column of `marts.fact_chargeback`, in contract order."""
    models = yaml.safe_load(CHARGEBACK_CONTRACT.read_text())["models"]
    contract = next(m for m in models if m["name"] == "fact_chargeback")
    return tuple(column["name"] for column in contract["columns"])


def line_columns() -> tuple[str, ...]:
    """The content of a charge line (what the lines hash covers), in contract order."""
    return tuple(c for c in mart_columns() if c not in PUBLICATION_COLUMNS)
