"""extractors.prometheus.openmetrics: series rendered as promtool backfills them."""

from __future__ import annotations

import math
import re

import pytest

from extractors.prometheus.openmetrics import ExpositionSeries, render_openmetrics


def test_render_openmetrics_orders_points_groups_families_and_ends_with_eof() -> None:
    text = render_openmetrics(
        [
            ExpositionSeries(
                "DCGM_FI_DEV_FB_USED", {"UUID": "GPU-1", "Hostname": 'a"b'}, [(120, 2.0), (60, 1.5)]
            ),
            ExpositionSeries(
                "vllm:prompt_tokens_total", {"model_name": "m"}, [(60, 5.0)], "counter"
            ),
            ExpositionSeries("DCGM_FI_DEV_FB_USED", {"UUID": "GPU-2"}, [(60, math.nan)]),
        ]
    )
    assert text == (
        "# TYPE DCGM_FI_DEV_FB_USED gauge\n"
        'DCGM_FI_DEV_FB_USED{UUID="GPU-1",Hostname="a\\"b"} 1.5 60\n'
        'DCGM_FI_DEV_FB_USED{UUID="GPU-1",Hostname="a\\"b"} 2 120\n'
        'DCGM_FI_DEV_FB_USED{UUID="GPU-2"} NaN 60\n'
        "# TYPE vllm:prompt_tokens counter\n"
        'vllm:prompt_tokens_total{model_name="m"} 5 60\n'
        "# EOF\n"
    )


@pytest.mark.parametrize(
    ("series", "message"),
    [
        (ExpositionSeries("m", {}, [(1795761120000.0, 1.0)]), "is not whole epoch seconds"),  # type: ignore[list-item]
        (ExpositionSeries("m", {}, [(60, 1.0), (60, 2.0)]), "two points at 60"),
        (ExpositionSeries("c", {}, [(60, 1.0)], "counter"), "counter 'c' must end in _total"),
        (ExpositionSeries("m", {"bad-label": "x"}, [(60, 1.0)]), "invalid label name 'bad-label'"),
        (ExpositionSeries("9m", {}, [(60, 1.0)]), "invalid metric name '9m'"),
        (ExpositionSeries("m", {}, [(60, 1.0)], "histogram"), "metric type 'histogram'"),
    ],
)
def test_render_openmetrics_refuses_what_promtool_would_mangle(
    series: ExpositionSeries, message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        render_openmetrics([series])
