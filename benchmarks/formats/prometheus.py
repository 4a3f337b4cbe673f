"""Prometheus `/api/v1/query_range` responses of one day at a 60 s step, one file per metric
(what `curl .../api/v1/query_range?query=M&start=day&end=next-day&step=60` saves):

- dcgm-exporter's DCGM_FI_PROF_GR_ENGINE_ACTIVE, DCGM_FI_DEV_FB_USED and
  DCGM_FI_DEV_POWER_USAGE of every GPU, its series split by the pod holding the GPU on the
  Kubernetes nodes (dcgm-exporter's pod mapping), one series a GPU on the Slurm nodes;
- the day's model server pod's vLLM counters (prompt and generation tokens, finished
  requests by reason), cumulative from its start, counting the gateway's requests of the
  day when they finished.

Each response is written series by series: a day of one GPU is what is ever held.
"""

from __future__ import annotations

import bisect
import datetime as dt
import json
import math
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TextIO

from benchmarks.fleet import H100_MODEL, SERVED_MODEL, Fleet, Node, Run, day_seed, epoch_seconds
from benchmarks.formats.requests import Request
from gpuledger.demo.prometheus import (
    DCGM_METRICS,
    FINISHED_REASONS,
    GENERATION_TOKENS,
    PROMPT_TOKENS,
    REQUEST_SUCCESS,
    prom_value,
)

STEP_S = 60
STEPS = 86_400 // STEP_S
LEVELS = 100  # activity levels a busy GPU reads at (level 0: idle)
IDLE_WATTS, MAX_WATTS, MEMORY_MIB = 68.0, 690.0, 81_559
# Per level: GR engine activity, framebuffer used (MiB), power (W), as the API writes them.
ACTIVE = ["0", *(prom_value(round(0.3 + 0.65 * a / LEVELS, 4)) for a in range(1, LEVELS + 1))]
FB_USED = ["0", *(str(int(MEMORY_MIB * (0.2 + 0.7 * a / LEVELS))) for a in range(1, LEVELS + 1))]
POWER = [
    prom_value(IDLE_WATTS),
    *(
        prom_value(round(IDLE_WATTS + (MAX_WATTS - IDLE_WATTS) * (0.3 + 0.65 * a / LEVELS), 3))
        for a in range(1, LEVELS + 1)
    ),
]
TABLES = (ACTIVE, FB_USED, POWER)  # in DCGM_METRICS order
HEAD = '{"status":"success","data":{"resultType":"matrix","result":['
TAIL = "]}}\n"
VLLM_METRICS = (PROMPT_TOKENS, GENERATION_TOKENS, REQUEST_SUCCESS)


class _Response:
    """One query_range response written series by series."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.first = True
        out.write(HEAD)

    def series(self, labels: dict[str, str], points: str) -> None:
        if not self.first:
            self.out.write(",")
        self.first = False
        metric = json.dumps(labels, separators=(",", ":"), sort_keys=True)
        self.out.write(f'{{"metric":{metric},"values":[{points}]}}')

    def close(self) -> None:
        self.out.write(TAIL)


def metric_file(metric: str, day: dt.datetime) -> str:
    return f"prometheus-{metric.replace(':', '_')}-{day:%Y-%m-%d}.json"


def _gpu_labels(node: Node, gpu: int) -> dict[str, str]:
    return {
        "DCGM_FI_DRIVER_VERSION": "550.90.07",
        "Hostname": node.name,
        "UUID": node.uuids[gpu],
        "device": f"nvidia{gpu}",
        "gpu": str(gpu),
        "instance": f"{node.address}:9400",
        "job": "nvidia-dcgm-exporter",
        "modelName": H100_MODEL,
    }


def _holders(day: dt.datetime, runs: Sequence[Run]) -> list[int]:
    """Per step of the day, 1 + the index in `runs` of the run holding the GPU (0: none)."""
    held = [0] * STEPS
    for number, run in enumerate(runs, start=1):
        first = math.ceil((run.start - day).total_seconds() / STEP_S)
        last = min(STEPS, math.ceil((run.end - day).total_seconds() / STEP_S))
        held[first:last] = [number] * (last - first)
    return held


def write_dcgm_day(folder: Path, fleet: Fleet, day: dt.datetime) -> tuple[list[Path], int]:
    """The day's three DCGM responses; returns their paths and the points written."""
    base = epoch_seconds(day)
    prefixes = [f'[{base + step * STEP_S},"' for step in range(STEPS)]
    paths = [folder / metric_file(metric, day) for metric in DCGM_METRICS]
    points = 0
    with ExitStack() as stack:
        responses = [_Response(stack.enter_context(p.open("w", encoding="utf-8"))) for p in paths]
        for node in fleet.nodes:
            runs = list(fleet.runs(day, node))
            rng = day_seed(fleet.seed, "dcgm", day.date(), node.name)
            for gpu in range(len(node.uuids)):
                gpu_runs = [run for run in runs if run.first <= gpu < run.first + run.gpus]
                held = _holders(day, gpu_runs)
                drawn = rng.choices(range(1, LEVELS + 1), k=STEPS)
                levels = [d if h else 0 for d, h in zip(drawn, held, strict=True)]
                labels = _gpu_labels(node, gpu)
                groups: dict[int, list[int]] = {}
                if node.scheduler == "kubernetes":
                    for step, holder in enumerate(held):
                        groups.setdefault(holder, []).append(step)
                else:
                    groups[0] = list(range(STEPS))
                for holder, steps in groups.items():
                    series = dict(labels)
                    if holder:
                        run = gpu_runs[holder - 1]
                        series |= {"container": "server" if run.serving else "main"}
                        series |= {"namespace": run.owner, "pod": run.name}
                    for metric, table, response in zip(
                        DCGM_METRICS, TABLES, responses, strict=True
                    ):
                        text = ",".join([prefixes[s] + table[levels[s]] + '"]' for s in steps])
                        response.series(series | {"__name__": metric}, text)
                    points += len(steps) * len(DCGM_METRICS)
        for response in responses:
            response.close()
    return paths, points


def write_vllm_day(
    folder: Path, fleet: Fleet, day: dt.datetime, requests: Sequence[Request]
) -> tuple[list[Path], int]:
    """The day's model server pod's three vLLM counter responses (none without a pod);
    returns their paths and the points written."""
    run = fleet.serving_run(day)
    if run is None:
        return [], 0
    polls = [
        day + dt.timedelta(seconds=step * STEP_S)
        for step in range(STEPS)
        if run.start <= day + dt.timedelta(seconds=step * STEP_S) < run.end
    ]
    served = sorted((r for r in requests if r.finished_reason), key=lambda r: r.finished_at)
    ends = [r.finished_at for r in served]
    counted = [bisect.bisect_right(ends, poll) for poll in polls]
    sums: dict[str, list[int]] = {"prompt": [0], "generated": [0]}
    by_reason = {reason: [0] for reason in FINISHED_REASONS}
    for r in served:
        sums["prompt"].append(sums["prompt"][-1] + r.input_tokens)
        sums["generated"].append(sums["generated"][-1] + r.output_tokens)
        for reason, running in by_reason.items():
            running.append(running[-1] + (r.finished_reason == reason))
    labels = {
        "engine": "0",
        "instance": f"{run.node.address}:8000",
        "job": "vllm",
        "model_name": SERVED_MODEL,
        "namespace": run.owner,
        "pod": run.name,
    }
    times = [f'[{epoch_seconds(poll)},"' for poll in polls]

    def points(cumulative: list[int]) -> str:
        return ",".join(f'{t}{cumulative[n]}"]' for t, n in zip(times, counted, strict=True))

    series = {
        PROMPT_TOKENS: [(labels, sums["prompt"])],
        GENERATION_TOKENS: [(labels, sums["generated"])],
        REQUEST_SUCCESS: [
            (labels | {"finished_reason": reason}, running) for reason, running in by_reason.items()
        ],
    }
    paths, written = [], 0
    for metric in VLLM_METRICS:
        path = folder / metric_file(metric, day)
        with path.open("w", encoding="utf-8") as out:
            response = _Response(out)
            for series_labels, cumulative in series[metric]:
                response.series(series_labels | {"__name__": metric}, points(cumulative))
                written += len(polls)
            response.close()
        paths.append(path)
    return paths, written


def write_dcgm_scrapes(out: TextIO, fleet: Fleet, day: dt.datetime, every_s: int = 3600) -> int:
    """The fleet's dcgm-exporter `/metrics` scrapes of a day, one every `every_s` seconds, as
    a federation or a collector saves them: per scrape and metric its `# HELP` and `# TYPE`
    lines, then a sample line a GPU with its timestamp (milliseconds). Returns the samples."""
    samples = 0
    for offset in range(0, 86_400, every_s):
        at = day + dt.timedelta(seconds=offset)
        stamp = epoch_seconds(at) * 1000
        for metric, table in zip(DCGM_METRICS, TABLES, strict=True):
            out.write(f"# HELP {metric} {metric}.\n# TYPE {metric} gauge\n")
            for node in fleet.nodes:
                rng = day_seed(fleet.seed, "scrape", at, node.name, metric)
                for gpu in range(len(node.uuids)):
                    labels = ",".join(f'{k}="{v}"' for k, v in _gpu_labels(node, gpu).items())
                    value = table[rng.randrange(LEVELS + 1)]
                    out.write(f"{metric}{{{labels}}} {value} {stamp}\n")
                    samples += 1
    return samples
