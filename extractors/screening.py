"""What of a parsed batch lands, and what its evidence says about time: pure, on the batch's
Arrow tables, one chunk at a time (extractors.landing writes the outcome).

- `Screen.held_back(table, chunk)`: the records (source lines) of a chunk that must not land,
  each with its first reason: every row that breaks its table's expectation suite, and the
  rows that depend on one (a job's steps go with the job: `QUARANTINED_WITH` in the source's
  records module; a parent table's chunk is screened before its dependents').
- `TimeTracker`: the earliest and latest time among the rows seen, and whether an interval
  is still open; `extraction` and `span` from them.
"""

from __future__ import annotations

import datetime as dt
import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from extractors.expectations import failing_rows, ordered_pairs
from extractors.records import Rejected, Span


def covers_time(source: str) -> bool:
    """Whether a source's evidence covers a span of time (a CMDB export does not:
    `TIME_SERIES = False` in its records module)."""
    records = importlib.import_module(f"extractors.{source}.records")
    return getattr(records, "TIME_SERIES", True)


def _row(chunk: pa.Table, index: int) -> str:
    return json.dumps(chunk.slice(index, 1).to_pylist()[0], default=str)


class Screen:
    """The expectation suites of a source's tables, and the keys of the parents that failed
    so far (their dependents are held back with them)."""

    def __init__(self, source: str, row_types: Mapping[str, type]) -> None:
        records = importlib.import_module(f"extractors.{source}.records")
        self.row_types = row_types
        self.dependents: dict[str, tuple[str, tuple[str, ...]]] = dict(
            getattr(records, "QUARANTINED_WITH", {})
        )
        self.failed_keys: dict[str, set[tuple]] = {}

    def held_back(self, table: str, chunk: pa.Table) -> dict[int, Rejected]:
        held: dict[int, Rejected] = {}
        for failure in failing_rows(table, chunk, self.row_types[table]):
            line = chunk["source_line"][failure.index].as_py()
            held.setdefault(
                line, Rejected(line, failure.field, failure.reason, _row(chunk, failure.index))
            )
        for dependent, (parent, keys) in self.dependents.items():
            if parent == table and held:
                lines = pa.array(sorted(held), pa.int64())
                failed = chunk.filter(pc.is_in(chunk["source_line"], lines)).select(keys)
                self.failed_keys.setdefault(parent, set()).update(
                    tuple(row[k] for k in keys) for row in failed.to_pylist()
                )
            if dependent == table and self.failed_keys.get(parent):
                for index, row in enumerate(chunk.select([*keys, "source_line"]).to_pylist()):
                    key = tuple(row[k] for k in keys)
                    if key in self.failed_keys[parent] and row["source_line"] not in held:
                        reason = (
                            f"{dependent}: its {parent} record {'/'.join(map(str, key))} failed"
                        )
                        held[row["source_line"]] = Rejected(
                            row["source_line"], ",".join(keys), reason, _row(chunk, index)
                        )
        return held


@dataclass
class TimeTracker:
    """The time the rows of a batch name, accumulated chunk by chunk."""

    row_types: Mapping[str, type]
    earliest: dt.datetime | None = None
    latest: dt.datetime | None = None
    has_open_interval: bool = False
    _pairs: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)

    def update(self, table: str, chunk: pa.Table) -> None:
        for column in (f.name for f in chunk.schema if pa.types.is_timestamp(f.type)):
            low, high = pc.min(chunk[column]).as_py(), pc.max(chunk[column]).as_py()
            if low is not None:
                self.earliest = low if self.earliest is None else min(self.earliest, low)
                self.latest = high if self.latest is None else max(self.latest, high)
        pairs = self._pairs.setdefault(table, ordered_pairs(self.row_types[table]))
        for start, end in pairs:
            still_open = pc.and_(pc.is_valid(chunk[start]), pc.is_null(chunk[end]))
            self.has_open_interval |= bool(pc.any(still_open).as_py())

    def extraction(
        self,
        given: dt.datetime | None,
        given_basis: str,
        stated: dt.datetime | None,
        stated_basis: str | None,
    ) -> Span | None:
        """When the evidence was read (as a span of one instant): the caller's, the format's
        (`stated`), or the latest time among the rows."""
        if given is not None:
            return Span(given, given, given_basis)
        if stated is not None:
            return Span(stated, stated, stated_basis or "format")
        if self.latest is None:
            return None
        return Span(self.latest, self.latest, "latest_evidence")

    def span(self, extracted: Span | None, covers_from: dt.datetime | None = None) -> Span | None:
        """The rows' earliest time (or the start of the extraction window when the caller
        names it, `covers_from`: sacct -S) to the latest time they name, or to the extraction
        instant when it is known apart from the rows (an option, the live clock, the format):
        a dump covers what happened up to when it was taken. An interval still open (an end
        unset where its start is set) reaches the extraction instant too."""
        if self.earliest is None:
            return None
        to_extraction = extracted is not None and extracted.basis != "latest_evidence"
        highs = [self.latest]
        if extracted is not None and (to_extraction or self.has_open_interval):
            highs.append(extracted.end)
        start = "evidence" if covers_from is None else "window"
        basis = f"{start}_to_extraction" if to_extraction else start
        return Span(min(self.earliest, covers_from or self.earliest), max(highs), basis)
