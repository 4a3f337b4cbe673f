"""`gpuledger ingest prometheus --live` against a real Prometheus on loopback.

Two days of generated dcgm-exporter and vLLM series are backfilled into a fresh TSDB with
promtool and served by the Debian Prometheus (scripts/prometheus/{install,start,stop}.sh).
The live ingest asks for a window of 11,521 steps, so it must split; a rerun is a no-op, a
rerun without the state files (a crash after landing) re-lands nothing, and an overlapping
saved response ingested as a file adds no duplicate. After `gpuledger build` the staging
models must give back exactly the generated values.

Generated fleet: gpu-node-a (label `Hostname`) with two whole GPUs exporting
GR_ENGINE_ACTIVE, GPU_UTIL, FB_USED and POWER_USAGE; gpu-node-b (label `hostname`, the
current exporter's spelling) with a GPU exporting GPU_UTIL but no GR_ENGINE_ACTIVE and a
MIG GPU with two 3g.40gb instances, each repeating the GPU's power (the second copy off by
0.5 W, so the one kept is visible). vLLM: one model on two data-parallel engines; engine 1
restarts at the midpoint, so its counters reset.
"""

from __future__ import annotations

import datetime as dt
import random
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from extractors.prometheus.openmetrics import ExpositionSeries, render_openmetrics
from tests.conftest import REPO, run_cli, sql

SCRIPTS = REPO / "scripts" / "prometheus"
STEP = 60
POINTS = 2 * 24 * 60 + 1  # two days at one minute, both ends included
MODEL = "Qwen/Qwen2.5-7B-Instruct"
FB_MIB = 1_048_576
DCGM = {
    "active": "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
    "util": "DCGM_FI_DEV_GPU_UTIL",
    "fb": "DCGM_FI_DEV_FB_USED",
    "power": "DCGM_FI_DEV_POWER_USAGE",
}


@dataclass(frozen=True)
class Fleet:
    """What was generated: OpenMetrics text and the values staging must give back."""

    start: int
    end: int
    text: str
    # (gpu_uuid, gpu_instance_id, epoch) -> (active_ratio, source, fb_bytes, watts, mig parent)
    activity: dict[tuple[str, str | None, int], tuple[object, ...]]
    # (hour epoch) -> {column: value}
    usage: dict[int, dict[str, int]]


def _uuid(name: str) -> str:
    return f"GPU-{name}000000-0000-4000-8000-000000000000"


def generate(end: int, seed: int = 11) -> Fleet:
    rng = random.Random(seed)
    start = end - (POINTS - 1) * STEP
    times = list(range(start, end + 1, STEP))
    series: list[ExpositionSeries] = []
    activity: dict[tuple[str, str | None, int], tuple[object, ...]] = {}

    def gauge(metric: str, labels: dict[str, str], values: list[float]) -> None:
        series.append(ExpositionSeries(DCGM[metric], labels, list(zip(times, values, strict=True))))

    def base(gpu: str, index: int, host_label: str, host: str, model: str) -> dict[str, str]:
        labels = {"gpu": str(index), "UUID": _uuid(gpu), "device": f"nvidia{index}"}
        return labels | {"modelName": model, host_label: host}

    for index, gpu in enumerate(("a0", "a1")):
        labels = base(gpu, index, "Hostname", "gpu-node-a", "NVIDIA H100 80GB HBM3")
        labels |= {"pod": f"train-{gpu}", "namespace": "team-a", "container": "main"}
        active = [round(rng.random(), 4) for _ in times]
        util = [rng.randrange(101) for _ in times]
        fb = [rng.randrange(81_559) for _ in times]
        power = [round(rng.uniform(60, 700), 3) for _ in times]
        for metric, values in (("active", active), ("util", util), ("fb", fb), ("power", power)):
            gauge(metric, labels, values)
        for t, a, f, p in zip(times, active, fb, power, strict=True):
            activity[(_uuid(gpu), None, t)] = (a, "gr_engine_active", f * FB_MIB, p, False)

    labels = base("b0", 0, "hostname", "gpu-node-b", "NVIDIA A100-SXM4-80GB")
    util = [rng.randrange(101) for _ in times]
    fb = [rng.randrange(81_920) for _ in times]
    power = [round(rng.uniform(50, 400), 3) for _ in times]
    for metric, values in (("util", util), ("fb", fb), ("power", power)):
        gauge(metric, labels, values)
    for t, u, f, p in zip(times, util, fb, power, strict=True):
        activity[(_uuid("b0"), None, t)] = (u / 100, "gpu_util", f * FB_MIB, p, False)

    device_power = [round(rng.uniform(50, 400), 3) for _ in times]
    for instance in ("1", "2"):
        labels = base("b1", 1, "hostname", "gpu-node-b", "NVIDIA A100-SXM4-80GB")
        labels |= {"GPU_I_PROFILE": "3g.40gb", "GPU_I_ID": instance}
        active = [round(rng.random(), 4) for _ in times]
        fb = [rng.randrange(40_000) for _ in times]
        offset = 0.0 if instance == "1" else 0.5  # DCGM's per-instance copies of device power
        gauge("active", labels, active)
        gauge("fb", labels, fb)
        gauge("power", labels, [round(p + offset, 3) for p in device_power])
        for t, a, f in zip(times, active, fb, strict=True):
            activity[(_uuid("b1"), instance, t)] = (a, "gr_engine_active", f * FB_MIB, None, False)
    for t, p in zip(times, device_power, strict=True):
        activity[(_uuid("b1"), None, t)] = (None, None, None, p, True)

    usage: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    success = "vllm:request_success_total"
    counters = [
        ("vllm:prompt_tokens_total", {}, "input_tokens", 5_000),
        ("vllm:generation_tokens_total", {}, "output_tokens", 2_000),
        (success, {"finished_reason": "stop"}, "successful_request_count", 9),
        (success, {"finished_reason": "length"}, "successful_request_count", 3),
        (success, {"finished_reason": "abort"}, "failed_request_count", 2),
    ]
    for engine in ("0", "1"):
        for name, extra, column, per_minute in counters:
            value, points = float(rng.randrange(10_000)), []
            for i, t in enumerate(times):
                if engine == "1" and i == POINTS // 2:  # engine 1 restarts: counting from 0
                    value = 0.0
                added = rng.randrange(per_minute + 1)
                value += added
                points.append((t, value))
                if i > 0:  # the first point is only the baseline
                    usage[t // 3600 * 3600][column] += added  # across the reset too
            labels = {"model_name": MODEL, "engine": engine, **extra}
            labels |= {"instance": "vllm-0:8000", "job": "vllm"}
            series.append(ExpositionSeries(name, labels, points, "counter"))
    for hour in usage.values():
        hour["request_count"] = hour["successful_request_count"] + hour["failed_request_count"]
    return Fleet(start, end, render_openmetrics(series), activity, usage)


def _script(name: str, *args: object) -> None:
    """Run scripts/prometheus/NAME; a failure shows the script's own output."""
    done = subprocess.run(
        [SCRIPTS / name, *map(str, args)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, f"{name} failed ({done.returncode}):\n{done.stdout}{done.stderr}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass(frozen=True)
class Server:
    url: str
    fleet: Fleet
    timings: dict[str, float]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    timings: dict[str, float] = {}
    started = time.monotonic()
    _script("install.sh")
    timings["install"] = time.monotonic() - started
    work = tmp_path_factory.mktemp("prometheus")
    end = (int(time.time()) - 6 * 3600) // 3600 * 3600
    started = time.monotonic()
    fleet = generate(end)
    (work / "metrics.om").write_text(fleet.text)
    timings["generate"] = time.monotonic() - started
    port = _free_port()
    started = time.monotonic()
    _script("start.sh", work / "metrics.om", work / "server", str(port))
    timings["backfill_start_ready"] = time.monotonic() - started
    try:
        yield Server(f"http://127.0.0.1:{port}", fleet, timings)
    finally:
        _script("stop.sh", work / "server")
    print(" ".join(f"{k}={v:.2f}s" for k, v in timings.items()))


def _iso(epoch: int) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _batch_count(home: Path) -> int:
    return len(list((home / "raw" / "batches").glob("*.parquet")))


def test_live_ingest_splits_resumes_and_builds_the_generated_values(
    server: Server, home: Path, tmp_path: Path
) -> None:
    fleet = server.fleet
    # 8 days before the data end to 10 minutes past it: 11,521 steps, so two requests per
    # query; the 5 lookback minutes past the end must not come back as samples.
    start, end = _iso(fleet.end - 8 * 86400), _iso(fleet.end + 600)
    window = ["--url", server.url, "--start", start, "--end", end]
    first = run_cli(home, None, "ingest", "prometheus", "--live", *window)
    assert first.exit_code == 0, first.stderr
    assert first.stderr.count("DCGM_FI_DEV_FB_USED: chunk ") == 2
    assert "chunk 1/2" in first.stderr and "chunk 2/2" in first.stderr
    # 17 GPU series (a0, a1 x 4 metrics; b0 x 3; two MIG instances x 3) and 10 vLLM series
    points = 27 * POINTS
    assert f"total: read {points}, landed {points}, quarantined 0" in first.stdout
    batches = _batch_count(home)

    again = run_cli(home, None, "ingest", "prometheus", "--live", *window)
    assert again.exit_code == 0
    assert again.stderr.count("nothing to fetch in") == 13
    assert _batch_count(home) == batches

    # A crash after landing but before the state write: without state every chunk is asked
    # again, and every answer is the same bytes, so nothing lands twice.
    for state in (home / "state" / "prometheus").glob("*.json"):
        state.unlink()
    resumed = run_cli(home, None, "ingest", "prometheus", "--live", *window)
    assert resumed.exit_code == 0
    assert resumed.stderr.count("(already landed)") == 26
    assert _batch_count(home) == batches

    # A saved response that overlaps the chunk boundary, asked without the guard.
    boundary = fleet.end - 8 * 86400 + 10_999 * STEP
    saved = tmp_path / "fb_overlap.json"
    saved.write_bytes(_get(server.url, "DCGM_FI_DEV_FB_USED", boundary - 1800, boundary + 1800))
    overlap = run_cli(home, None, "ingest", "prometheus", "--file", str(saved))
    assert overlap.exit_code == 0
    assert "read 305, landed 305, quarantined 0" in overlap.stdout  # 5 series x 61 steps

    build = run_cli(home, None, "build")
    assert build.exit_code == 0, build.stderr

    rows = sql(
        home,
        "select gpu_uuid, gpu_instance_id, epoch(sampled_at)::bigint, active_ratio,"
        " active_ratio_source, framebuffer_used_bytes, power_watts, is_mig_parent"
        " from staging.stg_prometheus__gpu_activity",
    )
    got = {(r[0], r[1], r[2]): r[3:] for r in rows}
    assert len(rows) == len(got) == len(fleet.activity)  # no duplicated boundary sample
    assert got == fleet.activity
    assert max(r[2] for r in rows) == fleet.end  # no lookback repeats past the data end

    hosts = sql(
        home,
        "select distinct gpu_uuid, hostname from staging.stg_prometheus__gpu_activity order by 1",
    )
    assert hosts == [
        (_uuid("a0"), "gpu-node-a"),
        (_uuid("a1"), "gpu-node-a"),
        (_uuid("b0"), "gpu-node-b"),
        (_uuid("b1"), "gpu-node-b"),
    ]
    (mig_power_rows,) = sql(
        home,
        "select count(*) from staging.stg_prometheus__gpu_activity"
        " where gpu_uuid = ? and power_watts is not null",
        [_uuid("b1")],
    )
    assert mig_power_rows == (POINTS,)  # the device power counted once per time, not twice

    usage = sql(
        home,
        "select epoch(hour_start_at)::bigint, request_count, successful_request_count,"
        " failed_request_count, input_tokens, output_tokens"
        " from staging.stg_prometheus__model_server_usage"
        " where server_name = 'vllm' and model_name = ?",
        [MODEL],
    )
    columns = ("request_count", "successful_request_count", "failed_request_count")
    columns += ("input_tokens", "output_tokens")
    expected = {hour: tuple(v[c] for c in columns) for hour, v in fleet.usage.items()}
    assert {r[0]: tuple(r[1:]) for r in usage} == expected

    raw = pq.read_table(home / "raw" / "prometheus_series").to_pylist()
    assert {r["engine"] for r in raw if r["exporter"] == "vllm"} == {"0", "1"}  # summed in staging


def _get(url: str, query: str, start: int, end: int) -> bytes:
    params = urllib.parse.urlencode({"query": query, "start": start, "end": end, "step": STEP})
    with urllib.request.urlopen(f"{url}/api/v1/query_range?{params}", timeout=30) as response:
        return response.read()
