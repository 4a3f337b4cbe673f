"""The landed sources, discovered like `gpuledger ingest` discovers its commands.

Every extractor package with a `command.py` (extractors.commands.source_commands) is a source;
its `records.RAW_TABLES` names the raw tables it lands. Each raw table is the dbt source table
`source(<package>, <table>)`, so a new extractor appears in the asset graph, with its dbt
staging downstream, without any change here.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from extractors.commands import source_commands


def source_tables() -> dict[str, Mapping[str, type]]:
    """Source name -> {raw table -> record type}, for every source that lands tables."""
    tables: dict[str, Mapping[str, type]] = {}
    for name in source_commands():
        records = importlib.import_module(f"extractors.{name}.records")
        declared = getattr(records, "RAW_TABLES", {})
        if declared:
            tables[name] = dict(declared)
    return tables
