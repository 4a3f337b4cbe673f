"""Parse Prometheus `/api/v1/query_range` responses into series and point rows (pure),
streaming: chunks of at most `chunk_points` points, each an Arrow table, never a Python
object per point that outlives its series.

A response is `{"status": "success", "data": {"resultType": "matrix", "result": [...]}}`;
each result element is one series, `{"metric": {labels}, "values": [[ts, "value"], ...]}`
(an instant query's `vector` has one `"value": [ts, "value"]` instead), read one at a time
(extractors.prometheus.response). Every point is one input record: `records_read` counts
points, and a point's `source_line` is its 1-based position in the response, counting
series in order and then their values (a response is one line of JSON: a rejection's field
names the series and the value, `result[3].values[17]`). A series lands once, in
`prometheus_series` (extractors.prometheus.series), with the points that land. Rejected,
with the result index and field at fault: each point of a series of another family or of a
DCGM series without a GPU UUID label, and a point whose value is not a finite number
(`NaN`, `+Inf`, `ERROR - FAILED TO CONVERT TO STRING`), is beyond +-1e18
(records.VALUE_LIMIT), or whose timestamp is not a time. A
response that is not JSON, has `"status": "error"` or another result type raises ValueError
naming what is wrong.

A series' points are converted column-wise (Arrow parses the value strings); a series the
column-wise path cannot take whole (any bad point) is read point by point, which names each
bad point. Series in Prometheus's own layout (extractors.prometheus.response.PlainSeries)
are converted from their bytes, many series at a time (`_plain_columns`), with no Python
object per point; they land exactly as the decoded series would.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from extractors.prometheus.records import (
    VALUE_LIMIT,
    PrometheusPoint,
    PrometheusSeries,
    value_problem,
)
from extractors.prometheus.response import PlainSeries, Response
from extractors.prometheus.series import SeriesError, series_of
from extractors.records import Rejected, arrow_schema

CHUNK_POINTS = 1 << 18
# plain series are converted together once they hold this many points
PLAIN_BATCH_POINTS = 1 << 16
POINT_SCHEMA = arrow_schema(PrometheusPoint)
_EPOCH = dt.datetime(1970, 1, 1)
# epoch seconds a datetime can hold (years 1..9999), a little inside
_SECONDS = (-62135596800, 253402300798)
_MICROSECONDS = 1_000_000
# what a rejection's line is in a response (usually one line of JSON)
_LINE_IS_POINT = " (its line is its point's number in the response, counting series in order)"


@dataclass
class Chunk:
    """A bounded part of a batch: the series it names first (each series of a batch once),
    its points, its rejections, and the records (points) it read."""

    series: list[PrometheusSeries]
    points: pa.Table
    rejected: list[Rejected]
    records_read: int


@dataclass
class _Points:
    """One series' landed points within a chunk, as columns."""

    key: str
    micros: pa.Array  # int64 microseconds since the epoch
    values: pa.Array  # float64
    lines: pa.Array  # int64


@dataclass
class _ChunkBuilder:
    chunk_points: int
    line: int = 0  # records read so far, in the whole response
    series: list[PrometheusSeries] = field(default_factory=list)
    named: set[str] = field(default_factory=set)  # the keys of the series landed so far
    parts: list[_Points] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    points: int = 0
    records_read: int = 0

    def add(self, series: PrometheusSeries | None, part: _Points) -> Iterator[Chunk]:
        """Take a series' points, yielding each chunk they fill."""
        if series is not None and series.series_key not in self.named:
            self.named.add(series.series_key)
            self.series.append(series)
        while len(part.values):
            room = self.chunk_points - self.points
            taken = _Points(part.key, part.micros[:room], part.values[:room], part.lines[:room])
            self.parts.append(taken)
            self.points += len(taken.values)
            self.records_read += len(taken.values)
            part = _Points(part.key, part.micros[room:], part.values[room:], part.lines[room:])
            if self.points >= self.chunk_points:
                yield self.flush()

    def reject(self, line: int, field_name: str, reason: str, raw: str) -> None:
        self.rejected.append(Rejected(line, field_name, reason + _LINE_IS_POINT, raw))
        self.records_read += 1

    def flush(self) -> Chunk:
        counts = [len(p.values) for p in self.parts]
        keys = pa.array([p.key for p in self.parts], pa.string())
        indices = np.repeat(np.arange(len(self.parts), dtype=np.int64), counts)
        columns = {
            "series_key": pc.take(keys, pa.array(indices)),
            "sampled_at": _concat([p.micros for p in self.parts], pa.int64()).cast(
                pa.timestamp("us")
            ),
            "value": _concat([p.values for p in self.parts], pa.float64()),
            "source_line": _concat([p.lines for p in self.parts], pa.int64()),
        }
        chunk = Chunk(
            self.series, pa.table(columns, schema=POINT_SCHEMA), self.rejected, self.records_read
        )
        self.series, self.parts, self.rejected = [], [], []
        self.points = self.records_read = 0
        return chunk


def _concat(arrays: list[pa.Array], kind: pa.DataType) -> pa.Array:
    return pa.concat_arrays(arrays) if arrays else pa.array([], kind)


def parse_query_range(
    blocks: Iterable[bytes], *, chunk_points: int = CHUNK_POINTS
) -> Iterator[Chunk]:
    """The chunks of a `/api/v1/query_range` (or `/api/v1/query`) JSON response read as
    `blocks` of bytes; see the module doc."""
    builder = _ChunkBuilder(chunk_points)
    plain: list[tuple[int, PlainSeries]] = []  # waiting to be converted together, in order
    waiting = 0  # their points
    for index, (result_type, series) in enumerate(Response(blocks).elements()):
        if isinstance(series, PlainSeries):
            plain.append((index, series))
            waiting += series.points
            if waiting >= PLAIN_BATCH_POINTS:
                yield from _parse_plain(builder, plain)
                plain, waiting = [], 0
            continue
        yield from _parse_plain(builder, plain)
        plain, waiting = [], 0
        yield from _parse_series(builder, index, series, result_type)
        if builder.records_read >= chunk_points:  # rejections fill a chunk too
            yield builder.flush()
    yield from _parse_plain(builder, plain)
    if builder.records_read:
        yield builder.flush()


def _parse_plain(builder: _ChunkBuilder, plain: list[tuple[int, PlainSeries]]) -> Iterator[Chunk]:
    """Plain series, in order: each as `_parse_series` would take it decoded."""
    columns = _plain_columns([series for _, series in plain]) if plain else []
    for (index, series), part in zip(plain, columns, strict=True):
        where = f"result[{index}]"
        try:
            row = series_of(f"{where}.metric.", series.metric, builder.line + 1)
        except SeriesError:
            row = None
        if row is None or part is None:  # every point rejected, or some: as decoded
            yield from _parse_series(builder, index, series.decode(), "matrix")
        else:
            micros, numbers = part
            first = builder.line + 1
            lines = pa.array(np.arange(first, first + len(numbers), dtype=np.int64))
            builder.line += len(numbers)
            yield from builder.add(row, _Points(row.series_key, micros, numbers, lines))
        if builder.records_read >= builder.chunk_points:
            yield builder.flush()


def _plain_columns(plain: list[PlainSeries]) -> list[tuple[pa.Array, pa.Array] | None]:
    """Each plain series' (microseconds, values) as `_columns` gives them, or None where
    `_columns` would give None (a time outside the years 1..9999, a value Arrow does not
    parse, not finite or beyond VALUE_LIMIT). The series' points are split in one pass over their
    bytes: `t,v,t,v,...` once brackets and quotes are gone (their shape is checked)."""
    flat = b"],[".join(series.values for series in plain).translate(None, b'[]"')
    commas = np.flatnonzero(np.frombuffer(flat, np.uint8) == ord(","))
    starts = np.concatenate(([0], commas + 1))
    lengths = np.concatenate((commas, [len(flat)])) - starts
    offsets = np.zeros(len(starts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    tokens = pa.LargeStringArray.from_buffers(
        len(starts), pa.py_buffer(offsets), pa.py_buffer(flat.replace(b",", b""))
    )
    try:
        numbers = tokens.cast(pa.float64()).to_numpy()
    except pa.ArrowInvalid:  # a value Arrow does not parse: that series, or each alone
        return [None] if len(plain) == 1 else [_plain_columns([s])[0] for s in plain]
    # a time is digits (checked): 12 digits or fewer is exact as a double, and more is past
    # the year 9999
    seconds, values = numbers[0::2], np.ascontiguousarray(numbers[1::2])
    firsts = np.cumsum([0] + [series.points for series in plain[:-1]])
    good = (
        (np.minimum.reduceat(seconds, firsts) >= _SECONDS[0])
        & (np.maximum.reduceat(seconds, firsts) <= _SECONDS[1])
        & np.logical_and.reduceat(np.abs(values) <= VALUE_LIMIT, firsts)
        & np.logical_and.reduceat(lengths[0::2] <= 12, firsts)
    )
    micros = seconds.astype(np.int64) * _MICROSECONDS
    ends = [*firsts[1:], len(values)]
    return [
        (pa.array(micros[a:b]), pa.array(values[a:b])) if ok else None
        for a, b, ok in zip(firsts, ends, good, strict=True)
    ]


def _parse_series(
    builder: _ChunkBuilder, index: int, series: object, result_type: str
) -> Iterator[Chunk]:
    where = f"result[{index}]"
    whole = (
        _whole(series, where, builder.line + 1) if _is_plain_matrix(series, result_type) else None
    )
    if whole is not None:
        builder.line += len(whole[1].values)
        yield from builder.add(*whole)
        return
    points = _points_of(series, result_type)
    if points is None:
        builder.line += 1
        kind = "values list" if result_type == "matrix" else "value"
        builder.reject(builder.line, where, f"not a series object with a {kind}", _json(series))
        return
    labels = series.get("metric") if isinstance(series, dict) else None
    try:
        if not isinstance(labels, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in labels.items()
        ):
            raise SeriesError(f"{where}.metric", "labels are not an object of strings")
        row = series_of(f"{where}.metric.", labels, builder.line + 1)
    except SeriesError as err:
        for offset, point in points:
            builder.line += 1
            raw = _json({"metric": labels, "value": point})
            builder.reject(builder.line, f"{err.field} ({offset})", err.reason, raw)
        return
    yield from builder.add(*_point_by_point(builder, row, where, labels, points))


def _point_by_point(
    builder: _ChunkBuilder,
    row: PrometheusSeries,
    where: str,
    labels: dict[str, str],
    points: list[tuple[str, object]],
) -> tuple[PrometheusSeries | None, _Points]:
    """The series' landed points, rejecting each bad one with its field; the series row
    (first named by its first landed point), or None when no point lands."""
    micros: list[int] = []
    values: list[float] = []
    lines: list[int] = []
    for offset, point in points:
        builder.line += 1
        try:
            sampled_at, value = _point(point)
        except ValueError as err:
            raw = _json({"metric": labels, "value": point})
            builder.reject(builder.line, f"{where}.{offset}", str(err), raw)
            continue
        micros.append((sampled_at - _EPOCH) // dt.timedelta(microseconds=1))
        values.append(value)
        lines.append(builder.line)
    part = _Points(
        row.series_key,
        pa.array(micros, pa.int64()),
        pa.array(values, pa.float64()),
        pa.array(lines, pa.int64()),
    )
    if not lines:
        return None, part
    return dataclasses.replace(row, source_line=lines[0]), part


def _is_plain_matrix(series: object, result_type: str) -> bool:
    """A matrix series of string labels with a non-empty `values` list and no histograms:
    what `_columns` may take whole."""
    return (
        result_type == "matrix"
        and isinstance(series, dict)
        and isinstance(series.get("values"), list)
        and len(series["values"]) > 0
        and "histograms" not in series
        and isinstance(series.get("metric"), dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in series["metric"].items())
    )


def _whole(series: dict, where: str, first_line: int) -> tuple[PrometheusSeries, _Points] | None:
    """A plain matrix series and all its points as columns; None when any part is bad (the
    series is then read point by point, which names what is wrong)."""
    try:
        row = series_of(f"{where}.metric.", series["metric"], first_line)
    except SeriesError:
        return None
    part = _columns(row.series_key, series["values"], first_line)
    return None if part is None else (row, part)


def _columns(key: str, values: list[object], first_line: int) -> _Points | None:
    """Every point of a matrix series as columns, or None unless every one is good:
    `[seconds, "finite number"]` pairs (within VALUE_LIMIT), times within the years 1..9999."""
    try:
        if sum(map(len, values)) != 2 * len(values):
            return None
        seconds = [p[0] for p in values]
        texts = pa.array([p[1] for p in values], pa.string())
        kinds = set(map(type, seconds))  # exactly: a bool is not a number of seconds here
        if kinds == {int}:
            times = pa.array(seconds, pa.int64())
        elif kinds <= {int, float}:
            times = pa.array(seconds, pa.float64())
        else:
            return None
    except (TypeError, KeyError, IndexError, OverflowError, pa.ArrowException):
        return None
    if texts.null_count:
        return None
    low, high = pc.min_max(times).values()
    if low.as_py() < _SECONDS[0] or high.as_py() > _SECONDS[1]:
        return None
    if times.type == pa.int64():
        micros = pc.multiply(times, _MICROSECONDS)
    else:
        scaled = pc.round(pc.multiply(times, float(_MICROSECONDS)), round_mode="half_to_even")
        micros = scaled.cast(pa.int64())
    try:
        numbers = texts.cast(pa.float64())
    except pa.ArrowInvalid:
        return None
    if not pc.all(pc.less_equal(pc.abs(numbers), VALUE_LIMIT)).as_py():
        return None  # NaN compares false: not finite, or beyond the limit
    lines = pa.array(np.arange(first_line, first_line + len(values), dtype=np.int64))
    return _Points(key, micros, numbers, lines)


def _points_of(series: object, result_type: str) -> list[tuple[str, object]] | None:
    """(field, point) pairs of a series: `values[i]` of a matrix, `value` of a vector.

    Native-histogram points (`histograms`) are listed too so that each is rejected.
    """
    if not isinstance(series, dict):
        return None
    if result_type == "vector":
        return [("value", series["value"])] if "value" in series else None
    values = series.get("values", [])
    histograms = series.get("histograms", [])
    if not isinstance(values, list) or not isinstance(histograms, list):
        return None
    if "values" not in series and "histograms" not in series:
        return None
    pairs: list[tuple[str, object]] = [(f"values[{i}]", p) for i, p in enumerate(values)]
    pairs += [(f"histograms[{i}]", {"histogram": p}) for i, p in enumerate(histograms)]
    return pairs


def _point(point: object) -> tuple[dt.datetime, float]:
    """A `[ts, "value"]` pair as (naive UTC time, finite float); ValueError says why not."""
    if isinstance(point, dict) and "histogram" in point:
        raise ValueError("native histogram points are not supported")
    if not isinstance(point, list) or len(point) != 2:
        raise ValueError(f'expected [timestamp, "value"], got {_json(point)}')
    timestamp, text = point
    if isinstance(timestamp, bool) or not isinstance(timestamp, (int, float)):
        raise ValueError(f"timestamp {timestamp!r} is not a number of seconds")
    try:
        sampled_at = _EPOCH + dt.timedelta(seconds=timestamp)
    except (OverflowError, ValueError):
        raise ValueError(f"timestamp {timestamp!r} is out of range") from None
    if not isinstance(text, str):
        raise ValueError(f"value {text!r} is not a string")
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"value {text!r} is not a number") from None
    problem = value_problem(text, value)
    if problem:
        raise ValueError(problem)
    return sampled_at, value


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
