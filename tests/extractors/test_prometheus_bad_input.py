"""extractors.prometheus.parse on bad input: whole-response errors raised, bad points
quarantined with their place."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

from tests.extractors.prometheus_samples import (
    SCRAPED,
    SCRAPED_AT,
    assert_nothing_lost,
    gpu_rows,
    parse_text,
)

# --- bad input -------------------------------------------------------------------------------

TOO_MANY_POINTS = (
    '{"status":"error","errorType":"bad_data","error":"exceeded maximum resolution of 11,000 '
    'points per timeseries. Try decreasing the query resolution (?step=XX)"}'
)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "not JSON (line 1, column 1"),
        ('DCGM_FI_DEV_GPU_UTIL{UUID="x"} 0\n', "not JSON"),
        ("[]", "expected a Prometheus API response object"),
        (TOO_MANY_POINTS, "Prometheus returned an error (bad_data): exceeded maximum resolution"),
        ('{"status":"pending"}', "status is 'pending'"),
        ('{"status":"success"}', "'data' is missing"),
        (
            '{"status":"success","data":{"resultType":"scalar","result":[1,"2"]}}',
            "'scalar' is not supported",
        ),
        (
            '{"status":"success","data":{"resultType":"matrix","result":{}}}',
            "data.result is missing or not a list",
        ),
    ],
)
def test_whole_file_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_text(text)


GPU = {"__name__": "DCGM_FI_DEV_POWER_USAGE", "UUID": "GPU-1"}


@pytest.mark.parametrize(
    ("series", "field", "reason"),
    [
        (
            {"metric": GPU, "values": [[SCRAPED_AT, "NaN"]]},
            "result[0].values[0]",
            "value 'NaN' is not finite",
        ),
        (
            {"metric": GPU, "values": [[SCRAPED_AT, "+Inf"]]},
            "result[0].values[0]",
            "value '+Inf' is not finite",
        ),
        (
            {"metric": GPU, "values": [[SCRAPED_AT, "-1.5e19"]]},
            "result[0].values[0]",
            "value '-1.5e19' is beyond +-1e+18: a damaged reading",
        ),
        (
            {"metric": GPU, "values": [[SCRAPED_AT, "12 W"]]},
            "result[0].values[0]",
            "value '12 W' is not a number",
        ),
        (
            {"metric": GPU, "values": [[SCRAPED_AT, 12.5]]},
            "result[0].values[0]",
            "value 12.5 is not a string",
        ),
        (
            {"metric": GPU, "values": [["2026-11-27", "1"]]},
            "result[0].values[0]",
            "timestamp '2026-11-27' is not a number of seconds",
        ),
        (
            {"metric": GPU, "values": [[1e300, "1"]]},
            "result[0].values[0]",
            "timestamp 1e+300 is out of range",
        ),
        (
            {"metric": GPU, "values": [[SCRAPED_AT]]},
            "result[0].values[0]",
            'expected [timestamp, "value"]',
        ),
        (
            {"metric": GPU, "histograms": [[SCRAPED_AT, {"count": "1"}]]},
            "result[0].histograms[0]",
            "native histogram points are not supported",
        ),
        (
            {"metric": {"UUID": "GPU-1"}, "values": [[SCRAPED_AT, "1"]]},
            "result[0].metric.__name__ (values[0])",
            "series has no metric name",
        ),
        (
            {"metric": {"__name__": "up", "job": "x"}, "values": [[SCRAPED_AT, "1"]]},
            "result[0].metric.__name__ (values[0])",
            "metric 'up' is not a dcgm-exporter, vLLM or Triton metric",
        ),
        (
            {
                "metric": {"__name__": "DCGM_FI_DEV_NVSWITCH_LINK_THROUGHPUT_TX", "nvswitch": "0"},
                "values": [[SCRAPED_AT, "1"]],
            },
            "result[0].metric.UUID (values[0])",
            "has no GPU UUID label",
        ),
        (
            {
                "metric": {"__name__": "DCGM_FI_DEV_GPU_UTIL", "UUID": 7},
                "values": [[SCRAPED_AT, "1"]],
            },
            "result[0].metric (values[0])",
            "labels are not an object of strings",
        ),
        ({"metric": GPU, "values": "1"}, "result[0]", "not a series object with a values list"),
        ("GPU-1", "result[0]", "not a series object"),
    ],
)
def test_bad_points_are_quarantined(series: object, field: str, reason: str) -> None:
    good = {"metric": GPU, "values": [[SCRAPED_AT, "300.5"]]}
    text = json.dumps(
        {"status": "success", "data": {"resultType": "matrix", "result": [series, good]}}
    )
    result = parse_text(text)
    (rejected,) = result.rejected
    assert (rejected.line, rejected.field) == (1, field)
    assert reason in rejected.reason
    (row,) = gpu_rows(result)
    assert (row.value, row.source_line) == (300.5, 2)
    assert_nothing_lost(result)


def test_vector_result_and_fractional_timestamps() -> None:
    text = json.dumps(
        {
            "status": "success",
            "data": {
                "resultType": "vector",
                "result": [
                    {"metric": GPU, "value": [1795761120.25, "109.857"]},
                    {"metric": {**GPU, "UUID": "GPU-2"}, "value": [1795761120.25, "NaN"]},
                ],
            },
        }
    )
    result = parse_text(text)
    (row,) = gpu_rows(result)
    assert (row.sampled_at, row.value) == (SCRAPED + dt.timedelta(milliseconds=250), 109.857)
    assert result.rejected[0].field == "result[1].value"
