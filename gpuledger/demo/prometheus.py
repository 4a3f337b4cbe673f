"""Prometheus `/api/v1/query_range` responses: dcgm-exporter's activity, framebuffer and
power of the Kubernetes GPUs and MIG instances (with the pod holding each) for three days,
and the vLLM counters of the shared `chat-shared` model server for the month."""

from __future__ import annotations

import bisect
import datetime as dt
import random
from collections.abc import Sequence

from gpuledger.demo.common import Holding, Timeline, epoch_seconds, json_line, ticks
from gpuledger.demo.constants import DCGM_FROM, DCGM_TO, KUBE_NODES, POWER_WATTS, Window
from gpuledger.demo.kubernetes.cluster import MIG_MEMORY_MIB, MIG_SLICES, Slot, node_slots
from gpuledger.demo.kubernetes.pods import KubePod
from gpuledger.demo.requests import SERVED_MODEL, GatewayRequest

DCGM_STEP = dt.timedelta(minutes=10)
GR_ENGINE_ACTIVE = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
FB_USED = "DCGM_FI_DEV_FB_USED"
POWER_USAGE = "DCGM_FI_DEV_POWER_USAGE"
DCGM_METRICS = (GR_ENGINE_ACTIVE, FB_USED, POWER_USAGE)
VLLM_STEP = dt.timedelta(minutes=15)
PROMPT_TOKENS = "vllm:prompt_tokens_total"
GENERATION_TOKENS = "vllm:generation_tokens_total"
REQUEST_SUCCESS = "vllm:request_success_total"
VLLM_METRICS = (PROMPT_TOKENS, GENERATION_TOKENS, REQUEST_SUCCESS)
FINISHED_REASONS = ("stop", "length", "abort")

Series = dict[tuple[tuple[str, str], ...], list[list[object]]]


def prom_value(value: float) -> str:
    """A sample value as Prometheus's API writes it (shortest form, integers without .0)."""
    return str(int(value)) if float(value).is_integer() else repr(value)


def query_range(series: Series) -> str:
    """A `/api/v1/query_range` response of `series` (labels -> [[time, "value"], ...])."""
    result = [{"metric": dict(labels), "values": values} for labels, values in series.items()]
    return (
        json_line({"status": "success", "data": {"resultType": "matrix", "result": result}}) + "\n"
    )


def _add_point(
    series: dict[str, Series], metric: str, labels: dict[str, str], at: int, value: float
) -> None:
    """A sample of `metric` in its series of `labels` (and the metric's `__name__`)."""
    key = tuple(sorted((labels | {"__name__": metric}).items()))
    series[metric].setdefault(key, []).append([at, prom_value(value)])


def _workload_labels(holding: Holding | None) -> dict[str, str]:
    """dcgm-exporter's pod mapping: the pod holding the device, while one does."""
    if holding is None or not isinstance(holding.owner, KubePod):
        return {}
    pod = holding.owner
    return {"container": pod.container, "namespace": pod.namespace, "pod": pod.name}


def dcgm_responses(
    rng: random.Random, window: Window, uuids: dict[str, list[str]], holdings: dict[Slot, Timeline]
) -> dict[str, str]:
    """One query_range response per DCGM metric for the Kubernetes GPUs, DCGM_STEP apart:
    whole GPUs and the time-sliced L4s per GPU, the MIG node per GPU instance (power is the
    GPU's, repeated on each of its instances, as dcgm-exporter reports it)."""
    series: dict[str, Series] = {metric: {} for metric in DCGM_METRICS}
    for poll in ticks(window.at(DCGM_FROM), window.at(DCGM_TO), DCGM_STEP):
        at = epoch_seconds(poll)
        for node in KUBE_NODES:
            idle_watts, max_watts = POWER_WATTS[node.gpu_model]
            for gpu in range(node.gpus):
                labels = {
                    "DCGM_FI_DRIVER_VERSION": "550.90.07",
                    "Hostname": node.name,
                    "UUID": uuids[node.name][gpu],
                    "device": f"nvidia{gpu}",
                    "gpu": str(gpu),
                    "instance": f"{node.address}:9400",
                    "job": "nvidia-dcgm-exporter",
                    "modelName": node.gpu_model,
                }
                slots = [slot for slot in node_slots(node) if slot.gpu_index == gpu]
                held = [
                    (slot, holdings[slot].at(poll) if slot in holdings else None) for slot in slots
                ]
                if node.sharing == "mig":
                    rows = []
                    for slot, holding in held:
                        profile = slot.resource.removeprefix("nvidia.com/mig-")
                        active = rng.uniform(0.25, 0.95) if holding else 0.0
                        memory = MIG_MEMORY_MIB[profile] * rng.uniform(0.2, 0.9) if holding else 0
                        instance = {"GPU_I_ID": str(slot.instance), "GPU_I_PROFILE": profile}
                        rows.append((labels | instance | _workload_labels(holding), active, memory))
                    load = sum(row[1] * MIG_SLICES[row[0]["GPU_I_PROFILE"]] / 7 for row in rows)
                else:
                    users = [holding for _, holding in held if holding is not None]
                    active = min(1.0, sum(rng.uniform(0.3, 0.95) for _ in users))
                    memory = node.memory_mib * min(0.95, 0.3 * len(users)) if users else 0
                    shown = users[0] if node.sharing == "whole" and users else None
                    rows = [(labels | _workload_labels(shown), active, memory)]
                    load = active
                watts = idle_watts + (max_watts - idle_watts) * load * rng.uniform(0.85, 1.0)
                for row_labels, active, memory in rows:
                    _add_point(series, GR_ENGINE_ACTIVE, row_labels, at, round(active, 4))
                    _add_point(series, FB_USED, row_labels, at, int(memory))
                    _add_point(series, POWER_USAGE, row_labels, at, round(watts, 3))
    return {metric: query_range(found) for metric, found in series.items()}


def vllm_responses(
    window: Window, servers: Sequence[KubePod], requests: Sequence[GatewayRequest]
) -> dict[str, str]:
    """query_range responses of the shared model server's vLLM counters over the period,
    VLLM_STEP apart: one series per server pod (a redeployed pod counts from 0 again), the
    requests it served counted when they finished."""
    served: dict[str, list[GatewayRequest]] = {}
    for request in requests:
        if request.server is not None and request.finished_reason is not None:
            served.setdefault(request.server.uid, []).append(request)
    series: dict[str, Series] = {metric: {} for metric in VLLM_METRICS}
    polls = ticks(window.period_start, window.period_end, VLLM_STEP)
    for pod in servers:
        started, finished = pod.started_at, pod.finished_at
        if started is None:
            continue
        done = sorted(served.get(pod.uid, []), key=lambda r: r.finished_at)
        ends = [r.finished_at for r in done]
        labels = {
            "engine": "0",
            "instance": f"{pod.ip}:8000",
            "job": "vllm",
            "model_name": SERVED_MODEL,
            "namespace": pod.namespace,
            "pod": pod.name,
        }
        for poll in polls:
            if poll < started or (finished is not None and poll >= finished):
                continue
            counted = done[: bisect.bisect_right(ends, poll)]
            at = epoch_seconds(poll)
            prompt = sum(r.input_tokens for r in counted)
            generated = sum(r.output_tokens for r in counted)
            _add_point(series, PROMPT_TOKENS, labels, at, prompt)
            _add_point(series, GENERATION_TOKENS, labels, at, generated)
            for reason in FINISHED_REASONS:
                finished_count = sum(1 for r in counted if r.finished_reason == reason)
                reason_labels = labels | {"finished_reason": reason}
                _add_point(series, REQUEST_SUCCESS, reason_labels, at, finished_count)
    return {metric: query_range(found) for metric, found in series.items()}
