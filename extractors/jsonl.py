"""Reading JSON Lines evidence: one JSON object per line, each field checked (pure, no I/O).

Shared by the JSONL sources (nvml, vgpu, requests). A field that is unusable raises
`FieldError` naming the field; the parser turns it into a quarantined record.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from extractors.records import ParseResult
from extractors.seen_keys import SeenKeys

Rows = list[tuple[str, object]]
Builder = Callable[[dict[str, Any], int], Rows]


class FieldError(ValueError):
    """One field of a record is unusable: the whole record is rejected naming that field."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


def json_lines(text: str, first_line: int = 1) -> Iterator[tuple[int, str]]:
    """(line number, line) for every non-blank line, numbered from `first_line` (the text's
    first line: a piece of a file starts where the one before it ended); blank lines are not
    records."""
    for number, raw in enumerate(text.split("\n"), start=first_line):
        line = raw.rstrip("\r")
        if line.strip():
            yield number, line


def load_object(line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except json.JSONDecodeError as err:
        raise FieldError("line", f"invalid JSON: {err.msg} at column {err.colno}") from None
    if not isinstance(value, dict):
        raise FieldError("line", f"expected a JSON object, got {type(value).__name__}")
    return value


def require_jsonl(records_read: int, objects: int, first_line: int) -> None:
    """A file none of whose lines is a JSON object is not JSON Lines at all: a file error."""
    if records_read and not objects:
        raise ValueError(
            f"line {first_line}: not JSON Lines (expected one JSON object per line, "
            "none of the lines is one)"
        )


@dataclass(frozen=True)
class UniqueKey:
    """A field no two records of a file may share (a gateway log's `request_id`): a record
    whose key an earlier line had is quarantined naming that line; the first one lands. Every
    record that lands gives one row of `table`, and `key` reads the field from it."""

    field: str
    table: str
    key: Callable[[Any], str]


class JsonlStream:
    """JSON Lines parsed piece by piece (extractors.textfile.land_pieces), or whole (`whole`):
    every non-blank line is one record, read into its rows by `read(obj, line)`; a FieldError
    quarantines the record with its line and field. Nothing is kept from one piece to the
    next but the counts `end` checks, the keys of `unique` (extractors.seen_keys: 24 bytes a
    record) and whatever `read` keeps."""

    def __init__(self, read: Builder, unique: UniqueKey | None = None) -> None:
        self.read = read
        self.unique = unique
        self.seen = SeenKeys()
        self.records_read = self.objects = self.first_line = 0

    def parse(self, text: str, line: int = 1, final: bool = True) -> ParseResult:
        result = ParseResult()
        keyed: list[tuple[int, str, int]] = []  # (line, raw, row index) of keyed records
        for number, raw in json_lines(text, line):
            result.records_read += 1
            self.first_line = self.first_line or number
            try:
                obj = load_object(raw)
                self.objects += 1
                rows = self.read(obj, number)
            except FieldError as err:
                result.reject(number, err.field, err.reason, raw)
                continue
            for table, row in rows:
                if self.unique is not None and table == self.unique.table:
                    keyed.append((number, raw, len(result.tables.get(table, ()))))
                result.add(table, row)
        if keyed:
            self._repeated_keys(result, keyed)
        self.records_read += result.records_read
        return result

    def _repeated_keys(self, result: ParseResult, keyed: list[tuple[int, str, int]]) -> None:
        """Quarantine the piece's records whose key an earlier line had (the rows they gave
        are taken out), in line order among the piece's other rejections."""
        assert self.unique is not None
        rows = result.tables[self.unique.table]
        keys = list(map(self.unique.key, [rows[index] for _, _, index in keyed]))
        earlier = self.seen.first_lines(keys, [number for number, _, _ in keyed])
        repeated = earlier.nonzero()[0].tolist()
        if not repeated:
            return
        dropped = set()
        for at in repeated:
            number, raw, index = keyed[at]
            reason = f"duplicate {self.unique.field} {keys[at]!r} (first on line {earlier[at]})"
            result.reject(number, self.unique.field, reason, raw)
            dropped.add(index)
        result.tables[self.unique.table] = [
            row for index, row in enumerate(rows) if index not in dropped
        ]
        result.rejected.sort(key=lambda rejected: rejected.line)

    def end(self) -> ParseResult:
        require_jsonl(self.records_read, self.objects, self.first_line)
        return ParseResult()

    def whole(self, text: str) -> ParseResult:
        result = self.parse(text)
        self.end()
        return result


def by_record_type(builders: dict[str, Builder]) -> Builder:
    """A reader that dispatches each record on its `record_type` to its builder."""

    def read(obj: dict[str, Any], line: int) -> Rows:
        kind = text(obj, "record_type")
        if kind not in builders:
            raise FieldError(
                "record_type",
                f"unknown record type {kind!r}; expected one of {', '.join(builders)}",
            )
        return builders[kind](obj, line)

    return read


def parse_records(content: str, builders: dict[str, Builder]) -> ParseResult:
    """Every non-blank line is one record, dispatched on its `record_type` to a builder that
    returns its rows; a FieldError quarantines the record with its line and field."""
    return JsonlStream(by_record_type(builders)).whole(content)


def _given(obj: dict[str, Any], name: str, required: bool) -> Any:
    """The field's value; None when it is absent or null and not required."""
    value = obj.get(name)
    if value is None and required:
        raise FieldError(name, "missing")
    return value


def text(obj: dict[str, Any], name: str, *, required: bool = True) -> str | None:
    value = _given(obj, name, required)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise FieldError(name, f"expected a non-empty string, got {value!r}")
    return value.strip()


def integer(
    obj: dict[str, Any],
    name: str,
    *,
    required: bool = True,
    minimum: int | None = 0,
    maximum: int | None = None,
) -> int | None:
    value = _given(obj, name, required)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise FieldError(name, f"expected an integer, got {value!r}")
    _check_range(name, value, minimum, maximum)
    return value


def number(
    obj: dict[str, Any],
    name: str,
    *,
    required: bool = True,
    minimum: float | None = 0,
    maximum: float | None = None,
) -> float | None:
    value = _given(obj, name, required)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise FieldError(name, f"expected a number, got {value!r}")
    _check_range(name, value, minimum, maximum)
    return float(value)


def sampled(obj: dict[str, Any]) -> dict[str, Any]:
    """`host`, `sampled_at` and `interval_seconds`: what every sampler record starts with."""
    return {
        "host": text(obj, "host"),
        "sampled_at": timestamp(obj, "sampled_at"),
        "interval_seconds": number(obj, "interval_seconds"),
    }


def percent(obj: dict[str, Any], name: str) -> float | None:
    """An optional percentage 0..100 (null when the device could not report it)."""
    return number(obj, name, required=False, minimum=0, maximum=100)


def choice(obj: dict[str, Any], name: str, allowed: tuple[str, ...], *, required: bool = True):
    value = text(obj, name, required=required)
    if value is not None and value not in allowed:
        raise FieldError(name, f"{value!r} is not one of {', '.join(allowed)}")
    return value


def timestamp(obj: dict[str, Any], name: str, *, required: bool = True) -> dt.datetime | None:
    """ISO 8601 text with a zone offset (`Z`, `+02:00`) to zone-less UTC."""
    value = text(obj, name, required=required)
    if value is None:
        return None
    try:
        parsed = dt.datetime.fromisoformat(value)
    except ValueError:
        raise FieldError(name, f"invalid ISO 8601 timestamp {value!r}") from None
    if parsed.tzinfo is None:
        raise FieldError(name, f"timestamp {value!r} has no zone offset (e.g. Z or +00:00)")
    return parsed.astimezone(dt.UTC).replace(tzinfo=None)


def reasons(obj: dict[str, Any], name: str = "null_reasons") -> str | None:
    """A `{field: reason}` object (why fields are null) as canonical JSON text, None if empty."""
    value = obj.get(name)
    if value is None or value == {}:
        return None
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise FieldError(name, f"expected an object of field -> reason strings, got {value!r}")
    return json.dumps(value, sort_keys=True)


def nested(obj: dict[str, Any], name: str, *, required: bool = True) -> dict[str, Any] | None:
    value = _given(obj, name, required)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise FieldError(name, f"expected an object, got {type(value).__name__}")
    return value


def _check_range(name: str, value: float, minimum: float | None, maximum: float | None) -> None:
    if minimum is not None and value < minimum:
        raise FieldError(name, f"must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise FieldError(name, f"must be <= {maximum}, got {value}")
