"""Parse Prometheus `/api/v1/query_range` responses into GPU and model-server rows (pure).

A response is `{"status": "success", "data": {"resultType": "matrix", "result": [...]}}`;
each result element is one series, `{"metric": {labels}, "values": [[ts, "value"], ...]}`
(an instant query's `vector` has one `"value": [ts, "value"]` instead). Every point is one
input record: `records_read` counts points, and a point's `source_line` is its 1-based
position in the response, counting series in order and then their values. A point lands in
the table its series' `__name__` selects (`DCGM_*` -> GPU samples, `vllm:*` and Triton `nv_*`
-> model-server samples) or is rejected with the result index and field at fault: a series
of another family, a DCGM series without a GPU UUID label, a value that is not a finite
number (`NaN`, `+Inf`, `ERROR - FAILED TO CONVERT TO STRING`). A response that is not JSON,
has `"status": "error"` or another result type raises ValueError naming what is wrong.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Callable, Mapping

from extractors.prometheus.records import (
    GPU_SAMPLES_TABLE,
    MODEL_SERVER_SAMPLES_TABLE,
    GpuSample,
    ModelServerSample,
)
from extractors.records import ParseResult

_EPOCH = dt.datetime(1970, 1, 1)
# (sampled_at, value, source_line) -> (raw table, row) for one series.
RowFactory = Callable[[dt.datetime, float, int], tuple[str, object]]

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


class SeriesError(ValueError):
    """A whole series is unusable: each of its points is rejected with this field/reason."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


# --- query_range JSON ------------------------------------------------------------------------


def parse_query_range(text: str) -> ParseResult:
    """Rows of a `/api/v1/query_range` (or `/api/v1/query`) JSON response; see the module doc."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(
            f"not JSON (line {err.lineno}, column {err.colno}: {err.msg}); "
            "expected a Prometheus /api/v1/query_range response"
        ) from None
    result_type, series_list = _result_of(document)
    result = ParseResult()
    for index, series in enumerate(series_list):
        _parse_series(result, index, series, result_type)
    return result


def _result_of(document: object) -> tuple[str, list[object]]:
    if not isinstance(document, dict) or "status" not in document:
        raise ValueError("expected a Prometheus API response object with a 'status' field")
    status = document["status"]
    if status == "error":
        raise ValueError(
            f"Prometheus returned an error ({document.get('errorType', 'unknown')}): "
            f"{document.get('error', 'no message')}"
        )
    if status != "success":
        raise ValueError(f"status is {status!r}, expected 'success'")
    data = document.get("data")
    if not isinstance(data, dict):
        raise ValueError("'data' is missing or not an object")
    result_type = data.get("resultType")
    if result_type not in ("matrix", "vector"):
        raise ValueError(
            f"data.resultType {result_type!r} is not supported (expected matrix or vector)"
        )
    series_list = data.get("result")
    if not isinstance(series_list, list):
        raise ValueError("data.result is missing or not a list")
    return result_type, series_list


def _parse_series(result: ParseResult, index: int, series: object, result_type: str) -> None:
    where = f"result[{index}]"
    points = _points_of(series, result_type)
    if points is None:
        result.records_read += 1
        result.reject(
            result.records_read,
            where,
            f"not a series object with a {'values list' if result_type == 'matrix' else 'value'}",
            _json(series),
        )
        return
    labels = series.get("metric") if isinstance(series, dict) else None
    try:
        if not isinstance(labels, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in labels.items()
        ):
            raise SeriesError(f"{where}.metric", "labels are not an object of strings")
        make_row = row_factory(f"{where}.metric.", labels)
    except SeriesError as err:
        for offset, point in points:
            result.records_read += 1
            raw = _json({"metric": labels, "value": point})
            result.reject(result.records_read, f"{err.field} ({offset})", err.reason, raw)
        return
    for offset, point in points:
        result.records_read += 1
        line = result.records_read
        try:
            sampled_at, value = _point(point)
        except ValueError as err:
            result.reject(
                line, f"{where}.{offset}", str(err), _json({"metric": labels, "value": point})
            )
            continue
        table, row = make_row(sampled_at, value, line)
        result.add(table, row)


def _points_of(series: object, result_type: str) -> list[tuple[str, object]] | None:
    """(field, point) pairs of a series: `values[i]` of a matrix, `value` of a vector.

    Native-histogram points (`histograms`) are listed too so that each is rejected.
    """
    if not isinstance(series, dict):
        return None
    if result_type == "vector":
        return [("value", series["value"])] if "value" in series else None
    values = series.get("values", [])
    histograms = series.get("histograms", [])
    if not isinstance(values, list) or not isinstance(histograms, list):
        return None
    if "values" not in series and "histograms" not in series:
        return None
    pairs: list[tuple[str, object]] = [(f"values[{i}]", p) for i, p in enumerate(values)]
    pairs += [(f"histograms[{i}]", {"histogram": p}) for i, p in enumerate(histograms)]
    return pairs


def _point(point: object) -> tuple[dt.datetime, float]:
    """A `[ts, "value"]` pair as (naive UTC time, finite float); ValueError says why not."""
    if isinstance(point, dict) and "histogram" in point:
        raise ValueError("native histogram points are not supported")
    if not isinstance(point, list) or len(point) != 2:
        raise ValueError(f'expected [timestamp, "value"], got {_json(point)}')
    timestamp, text = point
    if isinstance(timestamp, bool) or not isinstance(timestamp, (int, float)):
        raise ValueError(f"timestamp {timestamp!r} is not a number of seconds")
    try:
        sampled_at = _EPOCH + dt.timedelta(seconds=timestamp)
    except (OverflowError, ValueError):
        raise ValueError(f"timestamp {timestamp!r} is out of range") from None
    if not isinstance(text, str):
        raise ValueError(f"value {text!r} is not a string")
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"value {text!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"value {text!r} is not finite")
    return sampled_at, value


def row_factory(prefix: str, labels: Mapping[str, str]) -> RowFactory:
    """A function (sampled_at, value, line) -> (table, row) for this series' labels; a
    rejection names a label as `prefix` + its name (`result[3].metric.UUID`)."""
    name = labels.get("__name__")
    if not name:
        raise SeriesError(
            f"{prefix}__name__",
            "series has no metric name (an aggregated query?); query the raw exporter metric",
        )
    series_labels = _json(dict(sorted(labels.items())))
    if name.startswith("DCGM_") or name.lower().startswith("dcgm_"):
        return _gpu_factory(prefix, name, labels, series_labels)
    server_metric = model_server_metric(name)
    if server_metric is None:
        raise SeriesError(
            f"{prefix}__name__",
            f"metric {name!r} is not a dcgm-exporter, vLLM or Triton metric",
        )
    server, metric = server_metric
    model_labels, reason_labels = _MODEL_LABELS[server]

    def model_server_row(sampled_at: dt.datetime, value: float, line: int) -> tuple[str, object]:
        return MODEL_SERVER_SAMPLES_TABLE, ModelServerSample(
            server=server,
            metric=metric,
            source_metric=name,
            model=_label(labels, *model_labels),
            model_version=_label(labels, "version"),
            reason=_label(labels, *reason_labels),
            engine=_label(labels, "engine"),
            instance=_label(labels, "instance"),
            sampled_at=sampled_at,
            value=value,
            series_labels=series_labels,
            source_line=line,
        )

    return model_server_row


def _gpu_factory(
    prefix: str, name: str, labels: Mapping[str, str], series_labels: str
) -> RowFactory:
    gpu_uuid = _label(labels, "UUID", "uuid", "gpu_uuid")
    if gpu_uuid is None:
        raise SeriesError(
            f"{prefix}UUID",
            f"{name} series has no GPU UUID label (UUID or uuid); not a GPU sample",
        )
    metric = name.upper() if name.lower().startswith("dcgm_fi_") else name
    fields = {
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

    def gpu_row(sampled_at: dt.datetime, value: float, line: int) -> tuple[str, object]:
        return GPU_SAMPLES_TABLE, GpuSample(
            metric=metric,
            gpu_uuid=gpu_uuid,
            sampled_at=sampled_at,
            value=value,
            series_labels=series_labels,
            source_line=line,
            **fields,
        )

    return gpu_row


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


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
