"""extractors.prometheus.parse against real dcgm-exporter, vLLM and Triton scrapes (see
tests/extractors/prometheus_samples.py for how a scrape becomes a query_range response)."""

from __future__ import annotations

import json
import re

import pytest

from extractors.prometheus.series import model_server_metric
from extractors.records import ParseResult
from tests.extractors.prometheus_samples import (
    REAL,
    SCRAPED,
    SCRAPED_AT,
    assert_nothing_lost,
    gpu_rows,
    parse_scrape,
    parse_text,
    scrape_as_query_range,
    server_rows,
)

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
        assert rejected.reason == (
            "value 'ERROR - FAILED TO CONVERT TO STRING' is not a number"
            " (its line is its point's number in the response, counting series in order)"
        )
        point = json.loads(rejected.raw)
        assert point["metric"]["__name__"] == "DCGM_FI_DEV_VGPU_PER_PROCESS_UTILIZATION"
        assert point["metric"]["GPU_I_ID"] in ("3", "5")


def test_lowercase_hostname_of_the_current_exporter() -> None:
    """The exporter's own rendering after the Hostname -> hostname rename. Its test counter
    is TEST_METRIC (another family: quarantined); under a real field name the line lands."""
    text = (REAL / "dcgm-exporter/dcgm-exporter_server_test_expected_response.prom").read_text()
    as_is = parse_text(scrape_as_query_range(text, "dcgm"))
    assert as_is.rejected[0].reason.startswith(
        "metric 'TEST_METRIC' is not a dcgm-exporter, vLLM or Triton metric ("
    )
    renamed = text.replace("TEST_METRIC", "DCGM_FI_DEV_GPU_UTIL")
    (row,) = gpu_rows(parse_text(scrape_as_query_range(renamed, "dcgm")))
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
    (row,) = gpu_rows(parse_text(text))
    assert (row.gpu_uuid, row.hostname, row.pod, row.namespace, row.container) == expected


def test_lowercased_dcgm_names_are_normalised() -> None:
    text = one_series(
        {"__name__": "dcgm_fi_prof_gr_engine_active", "uuid": "gpu-1", "gpu_i_id": "12"}
    )
    (row,) = gpu_rows(parse_text(text))
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
