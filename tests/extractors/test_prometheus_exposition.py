"""extractors.prometheus.exposition: one exposition-format scrape as GPU and model-server
rows, each sample line a record (the real scrapes: tests/integrity/test_external_samples.py)."""

from __future__ import annotations

import datetime as dt

import pytest

from extractors.prometheus.exposition import exposition_field_at, parse_exposition
from extractors.prometheus.records import POINTS_TABLE
from tests.extractors.prometheus_samples import REAL, gpu_rows, server_rows

SCRAPED = dt.datetime(2026, 11, 27, 6, 32)
UUID = 'UUID="GPU-1"'


def test_labels_unescape_and_empty_values_are_dropped() -> None:
    text = f'DCGM_FI_DEV_FB_USED{{gpu="0",{UUID},pod="",container="a\\\\b \\"c\\"\\nd"}} 42\n'
    result = parse_exposition(text, scrape_time=SCRAPED)
    (row,) = gpu_rows(result)
    assert (row.value, row.sampled_at, row.pod, row.container) == (42, SCRAPED, None, 'a\\b "c"\nd')
    assert '"pod"' not in row.series_labels


def test_timestamps_are_milliseconds_or_openmetrics_seconds() -> None:
    line = f"DCGM_FI_DEV_FB_USED{{{UUID}}} 1 1700000000"
    prometheus = parse_exposition(line + "000\n", scrape_time=None)
    openmetrics = parse_exposition(line + "\n# EOF\n", scrape_time=None)
    expected = dt.datetime(2023, 11, 14, 22, 13, 20)
    assert gpu_rows(prometheus)[0].sampled_at == gpu_rows(openmetrics)[0].sampled_at == expected


@pytest.mark.parametrize(
    ("line", "field", "reason"),
    [
        (f"DCGM_FI_DEV_FB_USED{{{UUID}}} NaN", "value", "value 'NaN' is not finite"),
        (f"DCGM_FI_DEV_FB_USED{{{UUID}}} lots", "value", "value 'lots' is not a number"),
        (
            f"DCGM_FI_DEV_FB_USED{{{UUID}}} 1e30",
            "value",
            "value '1e30' is beyond +-1e+18: a damaged reading",
        ),
        (f"DCGM_FI_DEV_FB_USED{{{UUID}}} 1 soon", "timestamp", "timestamp 'soon' is not a number"),
        ('DCGM_FI_DEV_FB_USED{gpu="0" x} 1', "labels", "malformed label set at 'gpu=\"0\" x'"),
        ('DCGM_FI_DEV_FB_USED{gpu="0"} 1', "UUID", "DCGM_FI_DEV_FB_USED series has no GPU UUID"),
        ("node_load1 0.5", "__name__", "metric 'node_load1' is not a dcgm-exporter, vLLM"),
        ("{} 1", "line", "not a sample line"),
    ],
)
def test_a_bad_sample_is_rejected_with_its_line_and_field(
    line: str, field: str, reason: str
) -> None:
    text = f'# TYPE x gauge\n\nvllm:prompt_tokens_total{{model_name="m"}} 3\n{line}\n'
    result = parse_exposition(text, scrape_time=SCRAPED)
    assert [(r.line, r.field) for r in result.rejected] == [(4, field)]
    assert result.rejected[0].reason.startswith(reason)
    assert [(r.model, r.value) for r in server_rows(result)] == [("m", 3)]
    assert_nothing_lost_by_line(result)


def assert_nothing_lost_by_line(result) -> None:
    landed = result.tables.get(POINTS_TABLE, [])
    assert len(landed) + len(result.rejected) == result.records_read


def test_a_sample_without_time_needs_a_scrape_time() -> None:
    with pytest.raises(ValueError, match="line 2: the sample has no timestamp"):
        parse_exposition(f"# HELP x\nDCGM_FI_DEV_FB_USED{{{UUID}}} 1\n", scrape_time=None)


def test_the_field_at_an_invalid_byte() -> None:
    line = 'vllm:prompt_tokens_total{model="\ufffd",version="1"} 10'
    assert exposition_field_at(line, 1, 3) == "metric name"
    assert exposition_field_at(line, 1, line.index("\ufffd")) == "label model"
    assert exposition_field_at(line, 1, len(line) - 1) == "value"


def test_a_real_vllm_scrape_lands_every_sample_and_rejects_the_shell_prompt() -> None:
    # the docs' example, as its author pasted it: `$ curl ...`, the scrape, `...` gaps
    text = (REAL / "vllm" / "vllm_docs_design_metrics_example.prom").read_text()
    result = parse_exposition(text, scrape_time=SCRAPED)
    assert len(server_rows(result)) == 14
    assert [(r.line, r.field, r.raw) for r in result.rejected] == [
        (1, "line", "$ curl http://0.0.0.0:8000/metrics")
    ]
    assert result.warnings == ["3 elided line(s) '...' are not samples (lines 5, 9, 15)"]
    assert_nothing_lost_by_line(result)
