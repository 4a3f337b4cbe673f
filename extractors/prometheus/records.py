"""Typed rows of the Prometheus source: each series once, and its points.

A series is one label set of a dcgm-exporter (`DCGM_FI_*`), vLLM (`vllm:*`) or Triton
(`nv_*`) metric as Prometheus returned it from `/api/v1/query_range` (or a scrape listed
it): `prometheus_series` holds its labels once per batch, keyed by `series_key`, a hash of
the sorted label set (the same series has the same key in every batch), with the labels
staging needs already picked out. `prometheus_points` holds the points, one row per series
per evaluation step, in the exporter's own units (MiB, W, %, ratio, microseconds): staging
converts units once. Label sets are bounded by construction: the extractor queries raw
exporter series by metric name (GPU, MIG instance, pod, model, engine, finish reason), never
per-request series, and nothing here aggregates by an unbounded label.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

SERIES_TABLE = "prometheus_series"
POINTS_TABLE = "prometheus_points"

# The largest magnitude of a point that lands. The models sum points as decimals of 38
# digits, 12 of them after the point (gpuledger.exact_sum: below 1e26), and no reading or
# counter of these exporters comes near 1e18 (a counter of bytes at 1e18 is an exabyte): a
# value beyond it is a damaged reading, quarantined with its line like a non-finite one.
VALUE_LIMIT = 1e18


def value_problem(text: object, value: float) -> str | None:
    """Why a point's parsed value cannot land (`text` as the input had it), or None."""
    if not math.isfinite(value):
        return f"value {text!r} is not finite"
    if abs(value) > VALUE_LIMIT:
        return f"value {text!r} is beyond +-{VALUE_LIMIT:g}: a damaged reading"
    return None


@dataclass(frozen=True)
class PrometheusSeries:
    """One series of a batch: its exporter, normalized metric and the labels staging reads.

    dcgm series name a GPU (MIG series carry the parent GPU's UUID plus `gpu_instance_id`;
    device-level fields such as power are repeated by DCGM on every instance of the GPU);
    vLLM and Triton series name a model. `metric` is the normalized name: DCGM's in upper
    case; a model server's without its prefix and a counter's `_total` suffix, vLLM V0 names
    mapped to their V1 names (`prompt_tokens`, `request_success`, `request_duration_us`).
    """

    series_key: str  # sha256 of series_labels, first 24 hex digits
    exporter: str  # dcgm | vllm | triton
    metric: str
    source_metric: str  # the series' __name__ as stored by Prometheus
    gpu_uuid: str | None  # dcgm: label UUID, or uuid (--use-old-namespace); MIG: the parent
    gpu_index: str | None  # dcgm: label gpu
    gpu_instance_id: str | None  # dcgm: label GPU_I_ID (MIG only)
    gpu_instance_profile: str | None  # dcgm: label GPU_I_PROFILE (MIG only), "1g.10gb"
    hostname: str | None  # dcgm: label Hostname (exporter < 2026-05) or hostname
    model_name: str | None  # dcgm: label modelName, "NVIDIA H100 80GB HBM3"
    pod: str | None  # dcgm: pod / pod_name (old namespace) / exported_pod (scrape clash)
    namespace: str | None
    container: str | None
    model: str | None  # vLLM model_name (model when Triton re-exports it); Triton model
    model_version: str | None  # label version: Triton's (and vLLM re-exported by Triton)
    reason: str | None  # vLLM finished_reason; Triton failure reason
    engine: str | None  # vLLM V1 engine (data-parallel rank)
    instance: str | None  # Prometheus target instance
    series_labels: str  # every label of the series, JSON with sorted keys
    source_line: int  # the record (point) of the batch that first named the series


@dataclass(frozen=True)
class PrometheusPoint:
    """One point of one series, value as exported."""

    series_key: str
    sampled_at: dt.datetime  # the query's evaluation step (or the scrape's time), UTC
    value: float
    source_line: int  # the point's record number in the batch (see extractors.prometheus.parse)


RAW_TABLES: dict[str, type] = {
    SERIES_TABLE: PrometheusSeries,
    POINTS_TABLE: PrometheusPoint,
}
# a series held back holds back its points
QUARANTINED_WITH: dict[str, tuple[str, tuple[str, ...]]] = {
    POINTS_TABLE: (SERIES_TABLE, ("series_key",))
}
