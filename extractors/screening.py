"""What of a parsed batch lands, and what its evidence says about time (pure, on the batch's
Arrow tables; extractors.landing writes the outcome).

- `held_back`: every record (source line) that breaks its table's expectation suite, and the
  records that depend on one (a job's steps go with the job: `QUARANTINED_WITH` in the
  source's records module), each with its first reason.
- `extraction`: when the evidence was read: the caller's instant, the format's, or the latest
  time among the rows.
- `evidence_span`: the rows' earliest to latest time; an interval still open reaches the
  extraction instant.
"""

from __future__ import annotations

import datetime as dt
import importlib
import json
from collections.abc import Mapping

import pyarrow as pa
import pyarrow.compute as pc

from extractors.expectations import failing_rows, ordered_pairs
from extractors.records import ParseResult, Rejected, Span


def time_columns(table: pa.Table) -> list[str]:
    return [f.name for f in table.schema if pa.types.is_timestamp(f.type)]


def extraction(
    result: ParseResult,
    tables: Mapping[str, pa.Table],
    given: dt.datetime | None,
    given_basis: str,
) -> Span | None:
    """When the evidence was read (as a span of one instant): the caller's, the format's, or
    the latest time among the rows."""
    if given is not None:
        return Span(given, given, given_basis)
    if result.extracted_at is not None:
        basis = result.extracted_at_basis or "format"
        return Span(result.extracted_at, result.extracted_at, basis)
    latest = [pc.max(table[c]).as_py() for table in tables.values() for c in time_columns(table)]
    latest = [value for value in latest if value is not None]
    return Span(max(latest), max(latest), "latest_evidence") if latest else None


def evidence_span(
    tables: Mapping[str, pa.Table], row_types: Mapping[str, type], extracted: Span | None
) -> Span | None:
    """The rows' earliest time to the latest time they name, or to the extraction instant when
    it is known apart from the rows (an option, the live clock, the format): a dump covers
    what happened up to when it was taken. An interval still open (an end unset where its
    start is set) reaches the extraction instant too."""
    lows, highs = [], []
    to_extraction = extracted is not None and extracted.basis != "latest_evidence"
    if to_extraction:
        highs.append(extracted.end)
    for name, table in tables.items():
        for column in time_columns(table):
            low, high = pc.min(table[column]).as_py(), pc.max(table[column]).as_py()
            if low is not None:
                lows.append(low)
                highs.append(high)
        for start, end in ordered_pairs(row_types[name]):
            still_open = pc.and_(pc.is_valid(table[start]), pc.is_null(table[end]))
            if extracted is not None and pc.any(still_open).as_py():
                highs.append(extracted.end)
    if not lows:
        return None
    return Span(min(lows), max(highs), "evidence_to_extraction" if to_extraction else "evidence")


def covers_time(source: str) -> bool:
    """Whether a source's evidence covers a span of time (a CMDB export does not:
    `TIME_SERIES = False` in its records module)."""
    records = importlib.import_module(f"extractors.{source}.records")
    return getattr(records, "TIME_SERIES", True)


def held_back(
    source: str, tables: Mapping[str, pa.Table], row_types: Mapping[str, type]
) -> dict[int, Rejected]:
    """The records (source lines) of a parsed batch that must not land, each with its first
    reason: every row that breaks its table's expectation suite, and the rows that depend on
    one (a job's steps go with the job: `QUARANTINED_WITH` in the source's records module)."""
    held: dict[int, Rejected] = {}
    for name, table in tables.items():
        for failure in failing_rows(name, table, row_types[name]):
            line = table["source_line"][failure.index].as_py()
            row = table.slice(failure.index, 1).to_pylist()[0]
            raw = json.dumps(row, default=str)
            held.setdefault(line, Rejected(line, failure.field, failure.reason, raw))
    records = importlib.import_module(f"extractors.{source}.records")
    for dependent, (parent, keys) in getattr(records, "QUARANTINED_WITH", {}).items():
        if dependent not in tables or parent not in tables or not held:
            continue
        parents = tables[parent].filter(
            pc.is_in(tables[parent]["source_line"], pa.array(sorted(held), pa.int64()))
        )
        failed_keys = {tuple(row[k] for k in keys) for row in parents.select(keys).to_pylist()}
        children = tables[dependent]
        for index, row in enumerate(children.select([*keys, "source_line"]).to_pylist()):
            key = tuple(row[k] for k in keys)
            if key in failed_keys and row["source_line"] not in held:
                raw = json.dumps(children.slice(index, 1).to_pylist()[0], default=str)
                reason = f"{dependent}: its {parent} record {'/'.join(map(str, key))} failed"
                held[row["source_line"]] = Rejected(row["source_line"], ",".join(keys), reason, raw)
    return held
