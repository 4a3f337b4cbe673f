"""Exporter series as OpenMetrics text that `promtool tsdb create-blocks-from openmetrics`
backfills (pure): the inverse of `extractors.prometheus.parse`, for the live tests."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

_METRIC_NAME = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
_LABEL_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
_METRIC_TYPES = frozenset({"gauge", "counter", "unknown"})


@dataclass(frozen=True)
class ExpositionSeries:
    """One series to render: name, labels and (integer epoch seconds, value) points.

    A `counter`'s name must end in `_total` (its family is the name without it).
    """

    name: str
    labels: Mapping[str, str]
    points: Sequence[tuple[int, float]]
    metric_type: str = "gauge"


def render_openmetrics(series: Iterable[ExpositionSeries]) -> str:
    """OpenMetrics text for `promtool tsdb create-blocks-from openmetrics`.

    Each family is written once (its series contiguous, in the order given), each series'
    points in time order with integer-second timestamps, and the text ends with `# EOF`:
    promtool silently drops out-of-order points and writes millisecond timestamps 1000x in
    the future, so both are refused here (ValueError), as are duplicate timestamps.
    """
    families: dict[str, tuple[str, list[ExpositionSeries]]] = {}
    for item in series:
        family = _family(item)
        declared = families.setdefault(family, (item.metric_type, []))
        if declared[0] != item.metric_type:
            raise ValueError(
                f"family {family!r} declared both {declared[0]} and {item.metric_type}"
            )
        declared[1].append(item)
    lines: list[str] = []
    for family, (metric_type, members) in families.items():
        lines.append(f"# TYPE {family} {metric_type}")
        for item in members:
            selector = item.name + _render_labels(item.labels)
            for timestamp, value in _ordered_points(item):
                lines.append(f"{selector} {_render_value(value)} {timestamp}")
    lines.append("# EOF")
    return "\n".join(lines) + "\n"


def _family(item: ExpositionSeries) -> str:
    if not _METRIC_NAME.match(item.name):
        raise ValueError(f"invalid metric name {item.name!r}")
    if item.metric_type not in _METRIC_TYPES:
        raise ValueError(
            f"{item.name}: metric type {item.metric_type!r} is not one of {sorted(_METRIC_TYPES)}"
        )
    if item.metric_type == "counter":
        if not item.name.endswith("_total"):
            raise ValueError(f"counter {item.name!r} must end in _total")
        return item.name.removesuffix("_total")
    return item.name


def _render_labels(labels: Mapping[str, str]) -> str:
    if not labels:
        return ""
    parts = []
    for key, value in labels.items():
        if not _LABEL_NAME.match(key) or key.startswith("__"):
            raise ValueError(f"invalid label name {key!r}")
        escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        parts.append(f'{key}="{escaped}"')
    return "{" + ",".join(parts) + "}"


def _ordered_points(item: ExpositionSeries) -> list[tuple[int, float]]:
    for timestamp, _ in item.points:
        if isinstance(timestamp, bool) or not isinstance(timestamp, int):
            raise ValueError(f"{item.name}: timestamp {timestamp!r} is not whole epoch seconds")
    ordered = sorted(item.points, key=lambda point: point[0])
    for (first, _), (second, _) in itertools.pairwise(ordered):
        if first == second:
            raise ValueError(f"{item.name}{_render_labels(item.labels)}: two points at {first}")
    return ordered


def _render_value(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if float(value).is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(float(value))
