"""Parse a saved Prometheus exposition-format scrape (`curl :9400/metrics > x.prom`) into the
GPU and model-server rows a query_range response gives (pure).

Each sample line `name{label="value",...} value [timestamp]` is one record, numbered by its
physical line; it lands in the table its name selects (`extractors.prometheus.parse`) or is
rejected with its line and the field at fault (a label, the value, the timestamp). `# HELP`,
`# TYPE` and other comment lines and blank lines are not records; a line of `...` (an
author's elision in a documented excerpt) is not either, and a warning lists them. A last
line the file stops in the middle of is rejected as such.

A scrape carries no time: samples are dated `scrape_time` (naive UTC), which is required
unless every sample has its own timestamp (milliseconds since the epoch; seconds in
OpenMetrics text, which ends with `# EOF`). Empty label values are dropped, as Prometheus
stores none.
"""

from __future__ import annotations

import datetime as dt
import math
import re

from extractors.prometheus.parse import SeriesError, row_factory
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
    result = ParseResult()
    openmetrics = any(line.strip() == "# EOF" for line in text.split("\n"))
    lines = text.split("\n")
    elided = []
    last = max((i for i, line in enumerate(lines, start=1) if line.strip()), default=0)
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if _ELISION.match(line):
            elided.append(number)
            continue
        result.records_read += 1
        cut = number == last and not text.endswith("\n")
        try:
            table, row = _sample(line, number, scrape_time, openmetrics)
        except SeriesError as err:
            reason = err.reason + ("; the file stops in the middle of this line" if cut else "")
            result.reject(number, err.field, reason, line)
            continue
        result.add(table, row)
    if elided:
        shown = ", ".join(map(str, elided))
        result.warn(f"{len(elided)} elided line(s) '...' are not samples (lines {shown})")
    if scrape_time is not None:
        result.extracted_at, result.extracted_at_basis = scrape_time, "scrape_time"
    return result


def _sample(
    line: str, number: int, scrape_time: dt.datetime | None, openmetrics: bool
) -> tuple[str, object]:
    match = _SAMPLE.match(line.strip())
    if match is None:
        raise SeriesError("line", "not a sample line (name{labels} value [timestamp])")
    name, body, value_text, stamp = match.groups()
    labels = {"__name__": name, **_labels(body or "")}
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
    return row_factory("", labels)(sampled_at, value, number)


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
    if not math.isfinite(value):
        raise SeriesError("value", f"value {text!r} is not finite")
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
