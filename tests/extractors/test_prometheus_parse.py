"""extractors.prometheus.parse against real dcgm-exporter, vLLM and Triton scrapes.

The real samples are `/metrics` scrapes (tests/fixtures/real/{dcgm-exporter,vllm,triton}).
`scrape_as_query_range` turns one into the `/api/v1/query_range` response Prometheus would
give after scraping it once: the target labels `instance` and `job` added, empty label values
dropped (Prometheus stores no empty labels), the value text kept as it is.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from pathlib import Path

import pytest

from extractors.prometheus.parse import (
    ExpositionSeries,
    model_server_metric,
    parse_query_range,
    render_openmetrics,
)
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


# --- every real sample: counts ---------------------------------------------------------------

# file, GPU rows, model-server rows, rejected
REAL_SAMPLES = [
    ("dcgm-exporter/datadog_t4_metrics_excerpt.prom", 7, 0, 0),
    ("dcgm-exporter/datadog_label_remap.prom", 1, 0, 0),
    ("dcgm-exporter/a800_mig_scrape_excerpt.prom", 21, 0, 2),
    ("dcgm-exporter/dcgm-exporter_server_test_expected_response.prom", 0, 0, 1),
    ("vllm/vllm_docs_design_metrics_example.prom", 0, 14, 0),
    ("vllm/datadog_vllm_fixture_excerpt.prom", 0, 30, 0),
    ("triton/datadog_triton_metrics_excerpt.prom", 0, 22, 0),
    ("triton/triton_docs_summary_vs_counter_example.txt", 0, 9, 0),
    ("triton/kura_triton_metrics_reason_excerpt.prom", 0, 19, 0),
]


@pytest.mark.parametrize(
    ("name", "gpus", "servers", "rejected"), REAL_SAMPLES, ids=[s[0] for s in REAL_SAMPLES]
)
def test_real_sample_lands_or_quarantines_every_point(
    name: str, gpus: int, servers: int, rejected: int
) -> None:
    result = parse_scrape(name)
    assert (len(gpu_rows(result)), len(server_rows(result)), len(result.rejected)) == (
        gpus,
        servers,
        rejected,
    )
    assert result.records_read == gpus + servers + rejected
    assert_nothing_lost(result)
    assert all(row.sampled_at == SCRAPED for row in gpu_rows(result) + server_rows(result))


# --- dcgm-exporter labels and units ----------------------------------------------------------


def test_dcgm_values_stay_in_exporter_units_with_hostname_and_model() -> None:
    rows = {
        row.metric: row
        for row in gpu_rows(parse_scrape("dcgm-exporter/datadog_t4_metrics_excerpt.prom"))
    }
    power = rows["DCGM_FI_DEV_POWER_USAGE"]
    assert (power.gpu_uuid, power.gpu_index, power.hostname, power.model_name) == (
        "GPU-20c56d28-0da5-6d26-a36a-e7af1ce2586e",
        "0",
        "424773df46e0",
        "Tesla T4",
    )
    assert power.value == 8.969  # watts, as exported
    assert rows["DCGM_FI_DEV_FB_FREE"].value == 15109  # MiB, as exported
    assert rows["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"].value == 128996013  # mJ since boot
    assert (power.pod, power.namespace, power.container, power.gpu_instance_id) == (None,) * 4
    labels = json.loads(power.series_labels)
    assert labels["DCGM_FI_DRIVER_VERSION"] == "460.106.00"
    assert (labels["instance"], labels["job"]) == ("10.0.0.7:9400", "exporter")
    dram = rows["DCGM_FI_PROF_DRAM_ACTIVE"]
    assert (dram.pod, dram.namespace, dram.container) == ("ray-1111111", "ray-llm", "ray-worker")


def test_dcgm_pod_labels_from_the_kubernetes_mapping() -> None:
    (row,) = gpu_rows(parse_scrape("dcgm-exporter/datadog_label_remap.prom"))
    assert (row.metric, row.value, row.pod, row.namespace, row.container) == (
        "DCGM_FI_DEV_GPU_UTIL",
        0,
        "bar",
        "foo",
        "baz",
    )


@pytest.fixture(scope="module")
def a800() -> ParseResult:
    return parse_scrape("dcgm-exporter/a800_mig_scrape_excerpt.prom")


def test_mig_series_carry_the_parent_uuid_and_instance(a800: ParseResult) -> None:
    parent = "GPU-1f027ee8-6e1e-2b8c-0108-3d370e5f0418"
    active = [r for r in gpu_rows(a800) if r.metric == "DCGM_FI_PROF_GR_ENGINE_ACTIVE"]
    mig = sorted(
        (r.gpu_instance_id, r.gpu_instance_profile) for r in active if r.gpu_uuid == parent
    )
    assert mig == [("3", "2g.20gb"), ("5", "2g.20gb"), ("6", "2g.20gb")]
    whole = [r for r in active if r.gpu_uuid != parent]
    assert [(r.gpu_index, r.gpu_instance_id, r.gpu_instance_profile) for r in whole] == [
        ("1", None, None)
    ]
    assert {r.hostname for r in gpu_rows(a800)} == {"msxf-hpc-64-35-ai"}


def test_mig_device_level_series_are_repeated_per_instance(a800: ParseResult) -> None:
    """DCGM repeats power, energy and clocks on every instance: the raw rows keep each copy
    (staging keeps one per GPU); GPU_UTIL is absent for the MIG GPU."""
    parent = "GPU-1f027ee8-6e1e-2b8c-0108-3d370e5f0418"

    def copies(metric: str) -> list[tuple[str | None, float]]:
        return sorted(
            (r.gpu_instance_id, r.value)
            for r in gpu_rows(a800)
            if r.metric == metric and r.gpu_uuid == parent
        )

    assert copies("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION") == [
        ("3", 257858316),
        ("5", 257858316),
        ("6", 257858316),
    ]
    assert copies("DCGM_FI_DEV_SM_CLOCK") == [("3", 1410), ("5", 1410), ("6", 1410)]
    assert copies("DCGM_FI_DEV_POWER_USAGE") == [("3", 78.174), ("5", 78.174), ("6", 78.446)]
    assert copies("DCGM_FI_DEV_FB_USED") == [("3", 10), ("5", 10), ("6", 10)]
    assert copies("DCGM_FI_DEV_GPU_UTIL") == []


def test_the_exporter_error_value_is_quarantined_with_its_place(a800: ParseResult) -> None:
    assert len(a800.rejected) == 2
    for rejected in a800.rejected:
        assert re.fullmatch(r"result\[\d+\]\.values\[0\]", rejected.field)
        assert rejected.reason == "value 'ERROR - FAILED TO CONVERT TO STRING' is not a number"
        point = json.loads(rejected.raw)
        assert point["metric"]["__name__"] == "DCGM_FI_DEV_VGPU_PER_PROCESS_UTILIZATION"
        assert point["metric"]["GPU_I_ID"] in ("3", "5")


def test_lowercase_hostname_of_the_current_exporter() -> None:
    """The exporter's own rendering after the Hostname -> hostname rename. Its test counter
    is TEST_METRIC (another family: quarantined); under a real field name the line lands."""
    text = (REAL / "dcgm-exporter/dcgm-exporter_server_test_expected_response.prom").read_text()
    as_is = parse_query_range(scrape_as_query_range(text, "dcgm"))
    assert (
        as_is.rejected[0].reason
        == "metric 'TEST_METRIC' is not a dcgm-exporter, vLLM or Triton metric"
    )
    renamed = text.replace("TEST_METRIC", "DCGM_FI_DEV_GPU_UTIL")
    (row,) = gpu_rows(parse_query_range(scrape_as_query_range(renamed, "dcgm")))
    assert (row.hostname, row.gpu_uuid, row.model_name, row.value) == (
        "testhost",
        "GPU-00000000-0000-0000-0000-000000000000",
        "NVIDIA T400 4GB",
        42,
    )
    assert "pci_bus_id" not in json.loads(row.series_labels)  # empty: Prometheus drops it


def one_series(labels: dict[str, str], values: list[list[object]] | None = None) -> str:
    series = {"metric": labels, "values": values or [[SCRAPED_AT, "1"]]}
    return json.dumps({"status": "success", "data": {"resultType": "matrix", "result": [series]}})


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        pytest.param(
            {"uuid": "GPU-1", "pod_name": "p", "pod_namespace": "n", "container_name": "c"},
            ("GPU-1", None, "p", "n", "c"),
            id="use-old-namespace",
        ),
        pytest.param(
            {"UUID": "GPU-1", "Hostname": "exporter-pod", "hostname": "node7"},
            ("GPU-1", "node7", None, None, None),
            id="hostname-wins-over-Hostname",
        ),
        pytest.param(
            {
                "UUID": "GPU-1",
                "pod": "dcgm-exporter-x",
                "exported_pod": "train-0",
                "namespace": "gpu-operator",
                "exported_namespace": "team-a",
            },
            ("GPU-1", None, "train-0", "team-a", None),
            id="exported-labels-win-over-scrape-target-labels",
        ),
        pytest.param(
            {"UUID": "GPU-1", "pod": "", "namespace": ""},
            ("GPU-1", None, None, None, None),
            id="empty-means-none",
        ),
    ],
)
def test_label_variants(labels: dict[str, str], expected: tuple[str | None, ...]) -> None:
    text = one_series({"__name__": "DCGM_FI_DEV_FB_USED", **labels})
    (row,) = gpu_rows(parse_query_range(text))
    assert (row.gpu_uuid, row.hostname, row.pod, row.namespace, row.container) == expected


def test_lowercased_dcgm_names_are_normalised() -> None:
    text = one_series(
        {"__name__": "dcgm_fi_prof_gr_engine_active", "uuid": "gpu-1", "gpu_i_id": "12"}
    )
    (row,) = gpu_rows(parse_query_range(text))
    assert (row.metric, row.gpu_instance_id) == ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "12")


# --- vLLM and Triton -------------------------------------------------------------------------


def test_vllm_v0_and_v1_names_map_to_one_name() -> None:
    rows = server_rows(parse_scrape("vllm/datadog_vllm_fixture_excerpt.prom", "vllm"))
    by_source = {r.source_metric: r for r in rows}
    assert by_source["vllm:gpu_cache_usage_perc"].metric == "kv_cache_usage_perc"  # V0
    assert by_source["vllm:kv_cache_usage_perc"].metric == "kv_cache_usage_perc"  # V1
    prompt = by_source["vllm:prompt_tokens_total"]
    assert (prompt.server, prompt.metric, prompt.model, prompt.value, prompt.engine) == (
        "vllm",
        "prompt_tokens",
        "facebook/opt-125m",
        5,
        None,
    )
    success = by_source["vllm:request_success_total"]
    assert (success.metric, success.reason, success.value) == ("request_success", "length", 1)
    assert by_source["vllm:generation_tokens_total"].metric == "generation_tokens"
    assert all(r.model_version is None for r in rows)


def test_vllm_finished_reasons() -> None:
    rows = server_rows(parse_scrape("vllm/vllm_docs_design_metrics_example.prom", "vllm"))
    success = {r.reason: r.value for r in rows if r.metric == "request_success"}
    assert success == {"stop": 1, "length": 131, "abort": 0}
    (generated,) = [r for r in rows if r.metric == "generation_tokens"]
    assert (generated.model, generated.value) == ("meta-llama/Llama-3.1-8B-Instruct", 27453)


def test_triton_failure_reasons_and_microsecond_counters() -> None:
    rows = server_rows(parse_scrape("triton/kura_triton_metrics_reason_excerpt.prom", "triton"))
    failures = sorted((r.model, r.reason) for r in rows if r.metric == "request_failure")
    assert failures == sorted(
        (model, reason)
        for model in ("preprocessor", "identity_long")
        for reason in ("OTHER", "BACKEND", "CANCELED", "REJECTED")
    )
    duration = {r.model: r.value for r in rows if r.metric == "request_duration_us"}
    assert duration == {"preprocessor": 59877, "identity_long": 459}  # microseconds, raw
    assert {r.model_version for r in rows if r.model} == {"1"}
    (pool,) = [r for r in rows if r.source_metric == "nv_pinned_memory_pool_total_bytes"]
    assert (pool.model, pool.metric) == (None, "pinned_memory_pool_total_bytes")


def test_triton_without_reason_label_and_gpu_series() -> None:
    rows = server_rows(parse_scrape("triton/datadog_triton_metrics_excerpt.prom", "triton"))
    failures = [r for r in rows if r.metric == "request_failure"]
    assert {(r.model, r.reason) for r in failures} == {
        ("simple_string", None),
        ("densenet_onnx", None),
    }
    energy = next(r for r in rows if r.metric == "energy_consumption")
    assert energy.model is None
    assert (
        json.loads(energy.series_labels)["gpu_uuid"] == "GPU-951eeeeb-d284-d263-688e-d98a5306389b"
    )
    summary = [r for r in rows if r.metric.startswith("inference_request_summary_us")]
    assert len(summary) == 4


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("vllm:prompt_tokens_total", ("vllm", "prompt_tokens")),
        ("vllm:prompt_tokens", ("vllm", "prompt_tokens")),
        ("vllm:time_per_output_token_seconds_sum", ("vllm", "inter_token_latency_seconds_sum")),
        ("vllm:iteration_tokens_total_bucket", ("vllm", "iteration_tokens_total_bucket")),
        ("nv_inference_request_duration_us", ("triton", "request_duration_us")),
        ("nv_inference_exec_count", ("triton", "execution_count")),
        ("nv_gpu_power_usage", ("triton", "gpu_power_usage")),
        ("process_cpu_seconds_total", None),
        ("vllm:", None),
    ],
)
def test_model_server_metric_names(name: str, expected: tuple[str, str] | None) -> None:
    assert model_server_metric(name) == expected


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
        parse_query_range(text)


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
    result = parse_query_range(text)
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
    result = parse_query_range(text)
    (row,) = gpu_rows(result)
    assert (row.sampled_at, row.value) == (SCRAPED + dt.timedelta(milliseconds=250), 109.857)
    assert result.rejected[0].field == "result[1].value"


# --- OpenMetrics rendering -------------------------------------------------------------------


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
