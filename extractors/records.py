"""Record types shared by every extractor: what a parser returns to the landing writer."""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import types
import typing
from dataclasses import dataclass, field

import pyarrow as pa

_ARROW_TYPES: dict[object, pa.DataType] = {
    str: pa.string(),
    int: pa.int64(),
    float: pa.float64(),
    bool: pa.bool_(),
    dt.datetime: pa.timestamp("us"),
    dt.date: pa.date32(),
}


@dataclass(frozen=True)
class Rejected:
    """One input record that could not be landed, with where it came from and why."""

    line: int
    field: str
    reason: str
    raw: str


@dataclass(frozen=True)
class Span:
    """A UTC time span `[start, end]` and what it is known from (`basis`)."""

    start: dt.datetime
    end: dt.datetime
    basis: str


@dataclass
class ParseResult:
    """What a pure parser returns: rows per raw table, and the records it rejected.

    `records_read` counts input records (lines, JSON objects); one input record can yield
    several rows (an array-job line expands to one row per task), so rows are counted apart.
    Where the format itself says so, `coverage` is the span its evidence covers (a sacct
    window, a query range, a sampler run) and `extracted_at` the instant the source was read
    (with `extracted_at_basis`, e.g. `sacct_elapsed`: the instant sacct saw a running job at);
    the landing derives both from the rows' times otherwise. `warnings` are what a user
    should know about records that did land (GPU counts read from legacy columns, bytes
    replaced): the ingest prints each.
    """

    tables: dict[str, list[object]] = field(default_factory=dict)
    rejected: list[Rejected] = field(default_factory=list)
    records_read: int = 0
    coverage: Span | None = None
    extracted_at: dt.datetime | None = None
    extracted_at_basis: str | None = None
    warnings: list[str] = field(default_factory=list)

    def add(self, table: str, row: object) -> None:
        self.tables.setdefault(table, []).append(row)

    def reject(self, line: int, field_name: str, reason: str, raw: str) -> None:
        self.rejected.append(Rejected(line=line, field=field_name, reason=reason, raw=raw))

    def warn(self, message: str) -> None:
        self.warnings.append(message)


def _unwrap_optional(tp: object) -> object:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return tp


@functools.cache
def arrow_schema(record_type: type) -> pa.Schema:
    """The Parquet schema of a record dataclass: every field nullable, UTC-naive timestamps
    (computed once per type: an ingest asks for it with every chunk it writes)."""
    hints = typing.get_type_hints(record_type)
    fields = []
    for f in dataclasses.fields(record_type):
        py_type = _unwrap_optional(hints[f.name])
        if py_type not in _ARROW_TYPES:
            raise TypeError(f"{record_type.__name__}.{f.name}: unsupported type {py_type!r}")
        fields.append(pa.field(f.name, _ARROW_TYPES[py_type]))
    return pa.schema(fields)


def to_table(record_type: type, rows: list[object]) -> pa.Table:
    schema = arrow_schema(record_type)
    columns = {name: [getattr(r, name) for r in rows] for name in schema.names}
    return pa.Table.from_pydict(columns, schema=schema)
