"""Typed rows of the Prometheus source: DCGM exporter GPU samples and model-server counters.

Both tables hold raw points as Prometheus returned them from `/api/v1/query_range`, one row
per series per evaluation step, in the exporter's own units (MiB, W, %, ratio, microseconds):
staging converts units once. Label sets are bounded by construction: the extractor queries
raw exporter series by metric name (GPU, MIG instance, pod, model, engine, finish reason),
never per-request series, and nothing here aggregates by an unbounded label.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

GPU_SAMPLES_TABLE = "prometheus_gpu_samples"
MODEL_SERVER_SAMPLES_TABLE = "prometheus_model_server_samples"


@dataclass(frozen=True)
class GpuSample:
    """One point of one dcgm-exporter series (`DCGM_FI_*`), value in the exporter's unit.

    MIG series carry the parent GPU's UUID plus `gpu_instance_id`; device-level fields
    (power, energy, clocks) are repeated by DCGM on every instance of the GPU.
    """

    metric: str  # DCGM_FI_PROF_GR_ENGINE_ACTIVE, DCGM_FI_DEV_FB_USED, ...
    gpu_uuid: str  # label UUID, or uuid (--use-old-namespace); the parent GPU for MIG
    gpu_index: str | None  # label gpu
    gpu_instance_id: str | None  # label GPU_I_ID (MIG only)
    gpu_instance_profile: str | None  # label GPU_I_PROFILE (MIG only), "1g.10gb"
    hostname: str | None  # label Hostname (exporter < 2026-05) or hostname
    model_name: str | None  # label modelName, "NVIDIA H100 80GB HBM3"
    pod: str | None  # pod / pod_name (old namespace) / exported_pod (scrape label clash)
    namespace: str | None
    container: str | None
    sampled_at: dt.datetime  # the query's evaluation step, UTC
    value: float
    series_labels: str  # every label of the series, JSON with sorted keys
    source_line: int  # 1-based position of the point in the response (series, then values)


@dataclass(frozen=True)
class ModelServerSample:
    """One point of one vLLM (`vllm:*`) or Triton (`nv_*`) series, value as exported.

    `metric` is the normalized name: the prefix and a counter's `_total` suffix removed and
    vLLM V0 names mapped to their V1 names (`prompt_tokens`, `generation_tokens`,
    `request_success`, `request_failure`, `request_duration_us`, ...).
    """

    server: str  # vllm | triton
    metric: str
    source_metric: str  # the series' __name__ as stored by Prometheus
    model: str | None  # vLLM model_name (model when Triton re-exports it); Triton model
    model_version: str | None  # label version: Triton's (and vLLM re-exported by Triton)
    reason: str | None  # vLLM finished_reason; Triton failure reason
    engine: str | None  # vLLM V1 engine (data-parallel rank)
    instance: str | None  # Prometheus target instance
    sampled_at: dt.datetime
    value: float
    series_labels: str
    source_line: int


RAW_TABLES: dict[str, type] = {
    GPU_SAMPLES_TABLE: GpuSample,
    MODEL_SERVER_SAMPLES_TABLE: ModelServerSample,
}
