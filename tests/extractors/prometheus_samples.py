"""The real dcgm-exporter, vLLM and Triton scrapes the Prometheus parser tests read.

The real samples are `/metrics` scrapes (tests/fixtures/real/{dcgm-exporter,vllm,triton}).
`scrape_as_query_range` turns one into the `/api/v1/query_range` response Prometheus would
give after scraping it once: the target labels `instance` and `job` added, empty label values
dropped (Prometheus stores no empty labels), the value text kept as it is.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

from extractors.prometheus.parse import parse_query_range
from extractors.prometheus.records import (
    GPU_SAMPLES_TABLE,
    MODEL_SERVER_SAMPLES_TABLE,
    GpuSample,
    ModelServerSample,
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


def parse_scrape(name: str, job: str = "exporter") -> ParseResult:
    return parse_query_range(scrape_as_query_range((REAL / name).read_text("utf-8"), job))


def gpu_rows(result: ParseResult) -> list[GpuSample]:
    return result.tables.get(GPU_SAMPLES_TABLE, [])  # type: ignore[return-value]


def server_rows(result: ParseResult) -> list[ModelServerSample]:
    return result.tables.get(MODEL_SERVER_SAMPLES_TABLE, [])  # type: ignore[return-value]


def assert_nothing_lost(result: ParseResult) -> None:
    """Every point counted once, and either landed or rejected (never both, never neither)."""
    landed = [row.source_line for rows in result.tables.values() for row in rows]  # type: ignore[attr-defined]
    rejected = [r.line for r in result.rejected]
    assert sorted(landed + rejected) == list(range(1, result.records_read + 1))
