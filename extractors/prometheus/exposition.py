"""Parse a saved Prometheus exposition-format scrape (`curl :9400/metrics > x.prom`) into the
series and point rows a query_range response gives (pure).

Each sample line `name{label="value",...} value [timestamp]` is one record, numbered by its
physical line; it lands as a point of its series (each series once, first named by its
first line: extractors.prometheus.series) or is rejected with its line and the field at
fault (a label, the value, the timestamp). `# HELP`, `# TYPE` and other comment lines and
blank lines are not records; a line of `...` (an author's elision in a documented excerpt)
is not either, and a warning lists them. A last line the file stops in the middle of is
rejected as such.

A scrape carries no time: samples are dated `scrape_time` (naive UTC), which is required
unless every sample has its own timestamp (milliseconds since the epoch; seconds in
OpenMetrics text, which ends with `# EOF`). Empty label values are dropped, as Prometheus
stores none.
"""

from __future__ import annotations

import datetime as dt
import re

from extractors.prometheus.records import (
    POINTS_TABLE,
    SERIES_TABLE,
    PrometheusPoint,
    PrometheusSeries,
    value_problem,
)
from extractors.prometheus.series import SeriesError, series_of
from extractors.records import ParseResult

_EPOCH = dt.datetime(1970, 1, 1)
_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(?:\{(.*)\})?\s+(\S+)(?:\s+(\S+))?\s*$")
_LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)')
_ESCAPES = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}
_ELISION = re.compile(r"^\s*(\.\.\.|…)\s*$")


def is_exposition(text: str) -> bool:
    """Exposition text rather than a JSON API response: its first character is not `{`."""
    return not text.lstrip().startswith("{")


def parse_exposition(text: str, *, scrape_time: dt.datetime | None) -> ParseResult:
    """Rows of one scrape (see the module doc); ValueError when a sample has no time."""
    stream = ExpositionStream(scrape_time, is_openmetrics(text))
    result = stream.parse(text, 1, final=True)
    ended = stream.end()
    result.warnings += ended.warnings
    result.extracted_at, result.extracted_at_basis = ended.extracted_at, ended.extracted_at_basis
    return result


def is_openmetrics(text: str) -> bool:
    """Whether the text has a `# EOF` line (OpenMetrics: timestamps in seconds)."""
    return "# EOF" in text and any(line.strip() == "# EOF" for line in text.split("\n"))


class ExpositionStream:
    """A scrape parsed piece by piece (extractors.textfile.land_pieces; each piece whole
    lines): the same records, rows, rejects and warnings as reading it whole, with memory for
    a piece and the series named so far. `openmetrics`: whether the file has a `# EOF` line
    anywhere (is_openmetrics over its pieces: it ends the file, and it says what the
    timestamps before it count). The last sample line of a piece is held back until a later
    non-blank line shows it is not the file's last, the line a file that does not end with a
    newline stops in the middle of."""

    def __init__(self, scrape_time: dt.datetime | None, openmetrics: bool) -> None:
        self.scrape_time, self.openmetrics = scrape_time, openmetrics
        self.named: set[str] = set()
        self.keys: dict[tuple[str, str | None], str] = {}  # _sample's series read so far
        self.elided: list[int] = []
        self.pending: tuple[int, str] | None = None  # (number, line) maybe the last

    def parse(self, text: str, line: int, final: bool) -> ParseResult:
        result = ParseResult()
        for number, raw in enumerate(text.split("\n"), start=line):
            current = raw.rstrip("\r")
            if not current.strip():
                continue
            if self.pending is not None:
                self._record(result, *self.pending, cut=False)
                self.pending = None
            if current.lstrip().startswith("#"):
                continue
            if _ELISION.match(current):
                self.elided.append(number)
                continue
            self.pending = (number, current)
        if final and self.pending is not None:
            self._record(result, *self.pending, cut=bool(text) and not text.endswith("\n"))
            self.pending = None
        return result

    def end(self) -> ParseResult:
        """The warning about elided lines; the scrape time as the extraction instant."""
        ended = ParseResult()
        if self.elided:
            shown = ", ".join(map(str, self.elided))
            ended.warn(f"{len(self.elided)} elided line(s) '...' are not samples (lines {shown})")
        if self.scrape_time is not None:
            ended.extracted_at, ended.extracted_at_basis = self.scrape_time, "scrape_time"
        return ended

    def _record(self, result: ParseResult, number: int, line: str, cut: bool) -> None:
        result.records_read += 1
        try:
            series, point = _sample(line, number, self.scrape_time, self.openmetrics, self.keys)
        except SeriesError as err:
            reason = err.reason + ("; the file stops in the middle of this line" if cut else "")
            result.reject(number, err.field, reason, line)
            return
        if series is not None and series.series_key not in self.named:
            self.named.add(series.series_key)
            result.add(SERIES_TABLE, series)
        result.add(POINTS_TABLE, point)


def _sample(
    line: str,
    number: int,
    scrape_time: dt.datetime | None,
    openmetrics: bool,
    keys: dict[tuple[str, str | None], str],
) -> tuple[PrometheusSeries | None, PrometheusPoint]:
    """The line's point, and its series unless `keys` (name and label text -> series key, the
    series read so far) already has it: a scrape saved over and over repeats each series,
    whose labels are parsed and hashed once."""
    match = _SAMPLE.match(line.strip())
    if match is None:
        raise SeriesError("line", "not a sample line (name{labels} value [timestamp])")
    name, body, value_text, stamp = match.groups()
    known = keys.get((name, body))
    labels = {"__name__": name, **_labels(body or "")} if known is None else None
    value = _value(value_text)
    if stamp is not None:
        sampled_at = _timestamp(stamp, openmetrics)
    elif scrape_time is not None:
        sampled_at = scrape_time
    else:
        raise ValueError(
            f"line {number}: the sample has no timestamp and a scrape carries no time: "
            "give --scrape-time ISO (when the scrape was taken)"
        )
    if known is not None:
        return None, PrometheusPoint(known, sampled_at, value, number)
    series = series_of("", labels or {}, number)
    keys[(name, body)] = series.series_key
    return series, PrometheusPoint(series.series_key, sampled_at, value, number)


def _labels(body: str) -> dict[str, str]:
    labels: dict[str, str] = {}
    position = 0
    while position < len(body.rstrip()):
        match = _LABEL.match(body, position)
        if match is None:
            raise SeriesError("labels", f"malformed label set at {body[position:][:40]!r}")
        key, value = match.group(1), re.sub(r"\\[\\\"n]", _unescape, match.group(2))
        if value:
            labels[key] = value
        position = match.end()
    return labels


def _unescape(match: re.Match[str]) -> str:
    return _ESCAPES[match.group(0)]


def _value(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise SeriesError("value", f"value {text!r} is not a number") from None
    problem = value_problem(text, value)
    if problem:
        raise SeriesError("value", problem)
    return value


def _timestamp(text: str, openmetrics: bool) -> dt.datetime:
    try:
        number = float(text)
        return _EPOCH + dt.timedelta(seconds=number if openmetrics else number / 1000)
    except (ValueError, OverflowError):
        raise SeriesError("timestamp", f"timestamp {text!r} is not a number") from None


def exposition_field_at(text: str, line: int, column: int) -> str | None:
    """The label (or metric name, or value) at (line, column): where an invalid byte sits."""
    prefix = text.split("\n")[line - 1][:column]
    if "{" not in prefix:
        return "metric name"
    if "}" in prefix:
        return "value"
    keys = re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"', prefix)
    return f"label {keys[-1]}" if keys else "labels"
