"""The real dcgm-exporter, vLLM and Triton scrapes the Prometheus parser tests read.

The real samples are `/metrics` scrapes (tests/fixtures/real/{dcgm-exporter,vllm,triton}).
`scrape_as_query_range` turns one into the `/api/v1/query_range` response Prometheus would
give after scraping it once: the target labels `instance` and `job` added, empty label values
dropped (Prometheus stores no empty labels), the value text kept as it is.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
from pathlib import Path
from types import SimpleNamespace

from extractors.prometheus.parse import CHUNK_POINTS, parse_query_range
from extractors.prometheus.records import (
    POINTS_TABLE,
    SERIES_TABLE,
    PrometheusPoint,
    PrometheusSeries,
)
from extractors.records import ParseResult

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
SCRAPED_AT = 1795761120  # 2026-11-27T06:32:00Z
SCRAPED = dt.datetime(2026, 11, 27, 6, 32)
_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(.+)$")
_LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?')
_NOT_SAMPLES = ("#", "...", "$ ", "```")


def scrape_as_query_range(text: str, job: str) -> str:
    """The query_range JSON of one scrape of `text` at SCRAPED_AT (one point per series).

    In a document with ``` fences only the fenced lines are the scrape.
    """
    lines = text.splitlines()
    if "```" in text:
        fences = [i for i, line in enumerate(lines) if line.startswith("```")]
        pairs = zip(fences[::2], fences[1::2], strict=True)
        lines = [line for a, b in pairs for line in lines[a + 1 : b]]
    result = []
    for line in lines:
        if not line.strip() or line.startswith(_NOT_SAMPLES):
            continue
        match = _SAMPLE.match(line)
        assert match, f"not an exposition sample line: {line!r}"
        name, body, value = match.groups()
        labels = {"__name__": name, "instance": "10.0.0.7:9400", "job": job}
        for key, raw in _LABEL.findall(body or ""):
            if raw:
                labels[key] = raw.replace('\\"', '"').replace("\\\\", "\\")
        result.append({"metric": labels, "values": [[SCRAPED_AT, value.strip()]]})
    return json.dumps({"status": "success", "data": {"resultType": "matrix", "result": result}})


def parse_text(text: str, chunk_points: int = CHUNK_POINTS) -> ParseResult:
    """Every chunk of the streaming parser on `text`, gathered: the series and point rows
    (each series once), the rejections and the records read."""
    result = ParseResult()
    for chunk in parse_query_range([text.encode("utf-8")], chunk_points=chunk_points):
        for series in chunk.series:
            result.add(SERIES_TABLE, series)
        for point in chunk.points.to_pylist():
            result.add(POINTS_TABLE, PrometheusPoint(**point))
        result.rejected.extend(chunk.rejected)
        result.records_read += chunk.records_read
    return result


def parse_scrape(name: str, job: str = "exporter") -> ParseResult:
    return parse_text(scrape_as_query_range((REAL / name).read_text("utf-8"), job))


def samples(result: ParseResult) -> list[SimpleNamespace]:
    """Each landed point with its series' fields (`server` is the exporter), as staging
    joins them."""
    series: dict[str, PrometheusSeries] = {
        s.series_key: s
        for s in result.tables.get(SERIES_TABLE, [])  # type: ignore[attr-defined]
    }
    assert len(series) == len(result.tables.get(SERIES_TABLE, [])), "each series once"
    joined = []
    for point in result.tables.get(POINTS_TABLE, []):
        fields = dataclasses.asdict(series[point.series_key])  # type: ignore[attr-defined]
        joined.append(
            SimpleNamespace(
                **fields | dataclasses.asdict(point),  # type: ignore[call-overload]
                server=fields["exporter"],
            )
        )
    return joined


def gpu_rows(result: ParseResult) -> list[SimpleNamespace]:
    return [row for row in samples(result) if row.exporter == "dcgm"]


def server_rows(result: ParseResult) -> list[SimpleNamespace]:
    return [row for row in samples(result) if row.exporter != "dcgm"]


def assert_nothing_lost(result: ParseResult) -> None:
    """Every point counted once, and either landed or rejected (never both, never neither)."""
    landed = [point.source_line for point in result.tables.get(POINTS_TABLE, [])]  # type: ignore[attr-defined]
    rejected = [r.line for r in result.rejected]
    assert sorted(landed + rejected) == list(range(1, result.records_read + 1))
