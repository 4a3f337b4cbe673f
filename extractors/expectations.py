"""The expectation suite of each raw table, derived from its record type, and its evaluation
on the rows of a batch before they land (extractors.landing).

- keys present: every field the record declares non-optional is not null;
- values in range: counts, durations, sizes, tokens, energy and power are >= 0 (by the unit
  suffix of the column name), `_percent` columns lie in 0..100 and `_ratio` columns in 0..1;
- timestamps ordered: `end >= start` for each pair of timestamp columns named alike
  (start/end, started/finished, started/ended, from/to, creation/deletion), where both are set.

A new source is validated without a change here. The same suites run in Great Expectations
as the Dagster asset check of each raw table (orchestration/validation.py).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import typing
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

NON_NEGATIVE_SUFFIXES = ("_seconds", "_minutes", "_bytes", "_count", "_tokens", "_mw", "_mj")
NON_NEGATIVE_NAMES = frozenset({"quantity", "capacity", "allocatable", "hard", "used"})
ORDERED_WORDS = (
    ("start", "end"),
    ("started", "finished"),
    ("started", "ended"),
    ("from", "to"),
    ("creation", "deletion"),
)


@dataclass(frozen=True)
class Expectation:
    """One expectation of a suite, as plain data."""

    kind: str  # not_null | between | ordered
    columns: tuple[str, ...]
    min_value: float | None = None
    max_value: float | None = None

    def describe(self) -> str:
        if self.kind == "not_null":
            return f"{self.columns[0]} is present"
        if self.kind == "ordered":
            return f"{self.columns[1]} >= {self.columns[0]}"
        upper = "" if self.max_value is None else f" and <= {self.max_value:g}"
        return f"{self.columns[0]} >= {self.min_value:g}{upper}"

    def failing(self, table: pa.Table) -> pa.Array:
        """A boolean array: True where a row breaks this expectation (nulls never do, but
        for not_null)."""
        if self.kind == "not_null":
            return pc.is_null(table[self.columns[0]])
        if self.kind == "ordered":
            start, end = (table[c] for c in self.columns)
            return pc.fill_null(pc.less(end, start), False)
        column = table[self.columns[0]]
        low = pc.less(column, self.min_value)
        if self.max_value is not None:
            low = pc.or_(low, pc.greater(column, self.max_value))
        return pc.fill_null(low, False)


@dataclass(frozen=True)
class Field:
    name: str
    base: object
    optional: bool


@functools.cache
def record_fields(record_type: type) -> tuple[Field, ...]:
    """The record's fields, their types and whether they may be None (once per type)."""
    hints = typing.get_type_hints(record_type)
    fields = []
    for field in dataclasses.fields(record_type):
        args = typing.get_args(hints[field.name])
        optional = type(None) in args
        base = next((a for a in args if a is not type(None)), hints[field.name])
        fields.append(Field(field.name, base, optional))
    return tuple(fields)


@functools.cache
def ordered_pairs(record_type: type) -> tuple[tuple[str, str], ...]:
    """(start column, end column) pairs among the record's timestamp columns."""
    stamps = {f.name for f in record_fields(record_type) if f.base is dt.datetime}
    pairs = []
    for name in sorted(stamps):
        words = name.split("_")
        for first, second in ORDERED_WORDS:
            if first in words:
                other = "_".join(second if w == first else w for w in words)
                if other in stamps:
                    pairs.append((name, other))
    return tuple(pairs)


@functools.cache
def suite_for(record_type: type) -> tuple[Expectation, ...]:
    """The expectation suite of a raw table, derived from its record type."""
    fields = record_fields(record_type)
    expectations = [Expectation("not_null", (f.name,)) for f in fields if not f.optional]
    for f in fields:
        if f.base not in (int, float):
            continue
        if f.name.endswith("_percent"):
            expectations.append(Expectation("between", (f.name,), 0, 100))
        elif f.name.endswith("_ratio"):
            expectations.append(Expectation("between", (f.name,), 0, 1))
        elif f.name.endswith(NON_NEGATIVE_SUFFIXES) or f.name in NON_NEGATIVE_NAMES:
            expectations.append(Expectation("between", (f.name,), 0))
    expectations.extend(Expectation("ordered", pair) for pair in ordered_pairs(record_type))
    return tuple(expectations)


@dataclass(frozen=True)
class RowFailure:
    """A row of a batch that broke an expectation of its table's suite."""

    table: str
    index: int
    field: str
    reason: str


def failing_rows(table_name: str, table: pa.Table, record_type: type) -> list[RowFailure]:
    """Every row of `table` that breaks its suite, with the first expectation it breaks."""
    found: dict[int, RowFailure] = {}
    for expectation in suite_for(record_type):
        mask = expectation.failing(table)
        if not pc.any(mask).as_py():
            continue
        reason = f"{table_name}: expectation {expectation.describe()} failed"
        for index in pc.indices_nonzero(mask).to_pylist():
            found.setdefault(
                index, RowFailure(table_name, index, ",".join(expectation.columns), reason)
            )
    return [found[i] for i in sorted(found)]
