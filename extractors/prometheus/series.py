"""One series' label set as a `prometheus_series` row (pure): which exporter and metric it
is, the labels staging reads, and its key, a hash of the sorted label set.

The series lands in the family its `__name__` selects (`DCGM_*` -> dcgm, `vllm:*` -> vllm,
Triton `nv_*` -> triton) or is refused with the label at fault (`SeriesError`): no name, a
metric of another family, a DCGM series without a GPU UUID label.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

from extractors.prometheus.records import PrometheusSeries

# Triton's per-model counters, by the name Triton exports them under.
_TRITON_METRICS = {
    "nv_inference_request_success": "request_success",
    "nv_inference_request_failure": "request_failure",
    "nv_inference_count": "inference_count",
    "nv_inference_exec_count": "execution_count",
    "nv_inference_request_duration_us": "request_duration_us",
    "nv_inference_queue_duration_us": "queue_duration_us",
    "nv_inference_compute_input_duration_us": "compute_input_duration_us",
    "nv_inference_compute_infer_duration_us": "compute_infer_duration_us",
    "nv_inference_compute_output_duration_us": "compute_output_duration_us",
}
# vLLM V0 names whose V1 successor has another name (histogram suffixes follow the base).
_VLLM_V0_NAMES = {
    "gpu_cache_usage_perc": "kv_cache_usage_perc",
    "time_per_output_token_seconds": "inter_token_latency_seconds",
}
# The labels naming the model and the outcome, per server. vLLM's own exporter says
# model_name; vLLM re-exported by Triton's vLLM backend says model (and version), as Triton.
_MODEL_LABELS = {
    "vllm": (("model_name", "model"), ("finished_reason",)),
    "triton": (("model",), ("reason",)),
}
_NO_GPU = dict.fromkeys(
    (
        "gpu_uuid",
        "gpu_index",
        "gpu_instance_id",
        "gpu_instance_profile",
        "hostname",
        "model_name",
        "pod",
        "namespace",
        "container",
    )
)
_NO_MODEL = dict.fromkeys(("model", "model_version", "reason", "engine", "instance"))


class SeriesError(ValueError):
    """A whole series is unusable: each of its points is rejected with this field/reason."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


def series_key(series_labels: str) -> str:
    """The key of a series: sha256 of its sorted-label JSON, the first 24 hex digits."""
    return hashlib.sha256(series_labels.encode()).hexdigest()[:24]


def series_of(prefix: str, labels: Mapping[str, str], line: int) -> PrometheusSeries:
    """The series row of `labels`, first named by record `line`; a refusal names a label as
    `prefix` + its name (`result[3].metric.UUID`)."""
    name = labels.get("__name__")
    if not name:
        raise SeriesError(
            f"{prefix}__name__",
            "series has no metric name (an aggregated query?); query the raw exporter metric",
        )
    series_labels = json.dumps(
        dict(sorted(labels.items())), separators=(",", ":"), ensure_ascii=False
    )
    common = {
        "series_key": series_key(series_labels),
        "source_metric": name,
        "series_labels": series_labels,
        "source_line": line,
    }
    if name.startswith("DCGM_") or name.lower().startswith("dcgm_"):
        metric = name.upper() if name.lower().startswith("dcgm_fi_") else name
        return PrometheusSeries(
            exporter="dcgm",
            metric=metric,
            **_gpu_labels(prefix, name, labels),
            **_NO_MODEL,
            **common,
        )
    server_metric = model_server_metric(name)
    if server_metric is None:
        raise SeriesError(
            f"{prefix}__name__",
            f"metric {name!r} is not a dcgm-exporter, vLLM or Triton metric",
        )
    server, metric = server_metric
    model_labels, reason_labels = _MODEL_LABELS[server]
    return PrometheusSeries(
        exporter=server,
        metric=metric,
        model=_label(labels, *model_labels),
        model_version=_label(labels, "version"),
        reason=_label(labels, *reason_labels),
        engine=_label(labels, "engine"),
        instance=_label(labels, "instance"),
        **_NO_GPU,
        **common,
    )


def _gpu_labels(prefix: str, name: str, labels: Mapping[str, str]) -> dict[str, str | None]:
    gpu_uuid = _label(labels, "UUID", "uuid", "gpu_uuid")
    if gpu_uuid is None:
        raise SeriesError(
            f"{prefix}UUID",
            f"{name} series has no GPU UUID label (UUID or uuid); not a GPU sample",
        )
    return {
        "gpu_uuid": gpu_uuid,
        "gpu_index": _label(labels, "gpu"),
        "gpu_instance_id": _label(labels, "GPU_I_ID"),
        "gpu_instance_profile": _label(labels, "GPU_I_PROFILE"),
        "hostname": _label(labels, "hostname", "Hostname"),
        "model_name": _label(labels, "modelName"),
        # exported_* wins: it is the exporter's own label when the scrape's target labels
        # (the exporter pod) took the plain name.
        "pod": _label(labels, "exported_pod", "pod", "pod_name"),
        "namespace": _label(labels, "exported_namespace", "namespace", "pod_namespace"),
        "container": _label(labels, "exported_container", "container", "container_name"),
    }


def model_server_metric(name: str) -> tuple[str, str] | None:
    """(server, normalized metric) of a vLLM or Triton series name; None for other families.

    vLLM: the `vllm:` prefix and a trailing `_total` go, V0 names map to V1
    (`vllm:prompt_tokens_total` -> `prompt_tokens`, `vllm:gpu_cache_usage_perc` ->
    `kv_cache_usage_perc`). Triton: per-model counters get short names
    (`nv_inference_request_duration_us` -> `request_duration_us`), any other `nv_*` name
    loses its prefix.
    """
    if name.startswith("vllm:"):
        base = name.removeprefix("vllm:").removesuffix("_total")
        for old, new in _VLLM_V0_NAMES.items():
            if base == old or base.startswith(old + "_"):
                base = new + base[len(old) :]
        return ("vllm", base) if base else None
    if name.startswith("nv_"):
        base = name.removesuffix("_total")
        return "triton", _TRITON_METRICS.get(base, base.removeprefix("nv_"))
    return None


def _label(labels: Mapping[str, str], *names: str) -> str | None:
    """The first of `names` present (exact spelling first, then any letter case); "" is None."""
    for name in names:
        if name in labels:
            return labels[name] or None
    folded = {key.lower(): value for key, value in labels.items()}
    for name in names:
        if name.lower() in folded:
            return folded[name.lower()] or None
    return None
