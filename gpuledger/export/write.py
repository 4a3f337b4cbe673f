"""Write export rows: CSV (FOCUS columns, or the ledger's own) and Parquet (FOCUS columns).

Text follows the FOCUS attributes: date/times as `YYYY-MM-DDTHH:MM:SSZ` (DateTimeFormat),
numbers as plain decimals without exponent, sign or grouping (NumericFormat), null as an
empty field (NullHandling). Parquet keeps the types: decimal128(38, 12), timestamp (ms, UTC) and
string (Key-Value columns as their JSON text). A file is written beside its path and renamed
over it, so a reader never sees half an export.
"""

from __future__ import annotations

import csv
import datetime as dt
import os
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from gpuledger.export.focus import DATETIME_COLUMNS, DECIMAL_COLUMNS

PARQUET_DECIMAL = pa.decimal128(38, 12)


def text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, Decimal):
        return f"{value:f}"
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return str(value)


def _staged(path: Path) -> Path:
    return path.with_name(f".{path.name}.partial")


def write_csv(path: Path, rows: Sequence[dict[str, object]], columns: Sequence[str]) -> None:
    staged = _staged(path)
    with staged.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([text(row[column]) for column in columns])
    os.replace(staged, path)


def _arrow_type(column: str) -> pa.DataType:
    if column in DECIMAL_COLUMNS:
        return PARQUET_DECIMAL
    if column in DATETIME_COLUMNS:
        return pa.timestamp("ms", tz="UTC")
    return pa.string()


def write_parquet(path: Path, rows: Sequence[dict[str, object]], columns: Sequence[str]) -> None:
    schema = pa.schema([(column, _arrow_type(column)) for column in columns])
    arrays = {column: [row[column] for row in rows] for column in columns}
    table = pa.Table.from_pydict(arrays, schema=schema)
    staged = _staged(path)
    pq.write_table(table, staged)
    os.replace(staged, path)
