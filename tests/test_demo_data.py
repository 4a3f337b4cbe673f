"""The demo fleet generator: deterministic, well-formed sacct text, a schedule that fits.

The checks re-read the written files with their own small parser, so they do not trust
the generator's bookkeeping.
"""

from __future__ import annotations

import collections
import csv
import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from gpuledger.demo_data import DemoFiles, generate

PERIOD_START = dt.datetime(2026, 10, 1)
PERIOD_END = dt.datetime(2026, 11, 1)
HANDOVER = dt.datetime(2026, 10, 15, 12)
LATE_NODE_FROM = dt.datetime(2026, 10, 8)
OPEN_END = dt.datetime.max
FIELDS = [
    "jobid",
    "jobidraw",
    "cluster",
    "partition",
    "qos",
    "account",
    "group",
    "gid",
    "user",
    "uid",
    "submit",
    "eligible",
    "start",
    "end",
    "elapsed",
    "exitcode",
    "state",
    "nnodes",
    "ncpus",
    "reqcpus",
    "reqmem",
    "reqtres",
    "alloctres",
    "timelimit",
    "nodelist",
    "jobname",
]


@dataclass(frozen=True)
class Row:
    file: str
    values: dict[str, str]

    @property
    def is_step(self) -> bool:
        return "." in self.values["jobid"]

    def time(self, field: str) -> dt.datetime | None:
        text = self.values[field]
        return None if text == "Unknown" else dt.datetime.fromisoformat(text)

    @property
    def gpus(self) -> int:
        match = re.search(r"(?:^|,)gres/gpu=(\d+)", self.values["alloctres"])
        return int(match.group(1)) if match else 0

    @property
    def nodes(self) -> list[str]:
        return expand_hostlist(self.values["nodelist"])

    @property
    def month_gpu_hours(self) -> float:
        start = self.time("start")
        if start is None:
            return 0.0
        end = self.time("end") or OPEN_END
        seconds = (min(end, PERIOD_END) - max(start, PERIOD_START)).total_seconds()
        return max(0.0, seconds) * self.gpus / 3600


def expand_hostlist(text: str) -> list[str]:
    match = re.fullmatch(r"(.+)-\[(.+)\]", text)
    if match is None:
        return [text]
    names = []
    for part in match.group(2).split(","):
        low, _, high = part.partition("-")
        for number in range(int(low), int(high or low) + 1):
            names.append(f"{match.group(1)}-{number:0{len(low)}d}")
    return names


def read_rows(files: DemoFiles) -> list[Row]:
    rows = []
    for path in files.sacct_files:
        for line in path.read_text(encoding="utf-8").splitlines():
            rows.append(Row(path.name, dict(zip(FIELDS, line.split("|"), strict=True))))
    return rows


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoFiles:
    return generate(tmp_path_factory.mktemp("demo"))


@pytest.fixture(scope="module")
def rows(demo: DemoFiles) -> list[Row]:
    return read_rows(demo)


@pytest.fixture(scope="module")
def jobs(rows: list[Row]) -> list[Row]:
    return [r for r in rows if not r.is_step]


def file_bytes(files: DemoFiles) -> dict[str, bytes]:
    paths = [files.inventory, *files.sacct_files]
    return {p.name: p.read_bytes() for p in paths}


def test_same_seed_writes_the_same_bytes(demo: DemoFiles, tmp_path: Path) -> None:
    again = generate(tmp_path / "again")
    assert file_bytes(again) == file_bytes(demo)
    other = generate(tmp_path / "other", seed=8)
    assert file_bytes(other) != file_bytes(demo)


def test_files_are_weekly_sacct_and_a_cmdb_inventory(demo: DemoFiles) -> None:
    names = [p.name for p in demo.sacct_files]
    assert names == [f"sacct_2026-W{week}.txt" for week in range(39, 46)]
    with demo.inventory.open(newline="", encoding="utf-8") as handle:
        inventory = list(csv.reader(handle))
    header = ["gpu_uuid", "node", "gpu_model", "gpu_class", "in_service_from", "in_service_to"]
    assert inventory[0] == header
    gpus = inventory[1:]
    assert len(gpus) == 96
    assert len({g[0] for g in gpus}) == 96
    assert all(re.fullmatch(r"GPU-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", g[0]) for g in gpus)
    per_node = collections.Counter((g[1], g[2], g[3], g[4], g[5]) for g in gpus)
    assert (
        per_node[("hgx-h100-08", "NVIDIA H100 80GB HBM3", "h100", "2025-01-01T00:00:00Z", "")] == 8
    )
    assert (
        per_node[("dgx-a100-01", "NVIDIA A100-SXM4-80GB", "a100", "2025-01-01T00:00:00Z", "")] == 8
    )
    assert (
        per_node[("dgx-a100-04", "NVIDIA A100-SXM4-80GB", "a100", "2026-10-08T00:00:00Z", "")] == 8
    )
    assert len(per_node) == 12


def test_every_line_has_the_26_xdmod_fields(demo: DemoFiles) -> None:
    for path in demo.sacct_files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert line.count("|") == 25, f"{path.name}:{number}"
            assert "T" in line.split("|")[10], f"{path.name}:{number} submit"


def test_steps_follow_their_job(rows: list[Row]) -> None:
    current = None
    steps: dict[str, set[str]] = collections.defaultdict(set)
    for row in rows:
        jobid = row.values["jobid"]
        if row.is_step:
            base, step = jobid.split(".")
            assert base == current, f"{jobid} is not after its job"
            steps[base].add(step)
        else:
            current = jobid
    for row in rows:
        if row.is_step:
            continue
        expected = set() if row.values["state"] == "PENDING" else {"batch", "extern"}
        assert expected <= steps[row.values["jobid"]] <= expected | {"0"}


def test_a_job_lands_in_the_week_of_its_end(jobs: list[Row]) -> None:
    for job in jobs:
        end = job.time("end") or dt.datetime(2026, 11, 5)
        year, week, _ = end.isocalendar()
        assert job.file == f"sacct_{year}-W{week:02d}.txt", job.values["jobid"]


def test_gpus_held_never_exceed_a_node(jobs: list[Row]) -> None:
    events: dict[str, list[tuple[dt.datetime, int]]] = collections.defaultdict(list)
    for job in jobs:
        start = job.time("start")
        if start is None:
            continue
        nodes = job.nodes
        per_node = job.gpus // len(nodes)
        assert per_node * len(nodes) == job.gpus and per_node in (1, 2, 4, 8)
        for node in nodes:
            events[node].append((start, per_node))
            events[node].append((job.time("end") or OPEN_END, -per_node))
    assert len(events) == 12
    for node, changes in events.items():
        held = 0
        for _, change in sorted(changes):  # at one instant releases (negative) sort first
            held += change
            assert 0 <= held <= 8, node


def test_new_node_runs_nothing_before_it_enters_service(jobs: list[Row]) -> None:
    late = [j for j in jobs if "dgx-a100-04" in j.nodes]
    assert late
    assert min(j.time("start") for j in late) >= LATE_NODE_FROM


def test_unattributed_share_is_within_the_close_tolerance(jobs: list[Row]) -> None:
    hours: dict[str, float] = collections.Counter()
    for job in jobs:
        hours[job.values["account"]] += job.month_gpu_hours
    total = sum(hours.values())
    unattributed = hours["scratch"] + hours["hackathon"]
    print("\n2026-10 GPU-hours per account:")
    for account, value in sorted(hours.items()):
        print(f"  {account:14s} {value:10.1f}")
    print(f"  {'total':14s} {total:10.1f}  unattributed {100 * unattributed / total:.2f}%")
    assert 0.005 <= unattributed / total <= 0.015
    capacity = 64 * 744 + 24 * 744 + 8 * (744 - 7 * 24)
    assert 0.5 <= total / capacity <= 0.8


def test_workload_covers_the_demo_cases(jobs: list[Row]) -> None:
    assert 1500 <= len(jobs) <= 2500
    states = collections.Counter(j.values["state"].split()[0] for j in jobs)
    for state in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_MEMORY"):
        assert states[state] > 0, state
    for state in ("NODE_FAIL", "PREEMPTED", "RUNNING", "PENDING"):
        assert states[state] > 0, state
    by_state = {j.values["state"].split()[0]: j.values for j in jobs}
    assert by_state["FAILED"]["exitcode"] == "1:0"
    assert by_state["OUT_OF_MEMORY"]["exitcode"] == "0:125"
    assert re.fullmatch(r"CANCELLED by \d+", by_state["CANCELLED"]["state"])
    assert by_state["RUNNING"]["end"] == "Unknown"
    pending = by_state["PENDING"]
    assert (pending["start"], pending["nodelist"], pending["alloctres"]) == (
        "Unknown",
        "None assigned",
        "",
    )
    assert "gres/gpu=" in pending["reqtres"]

    started = [j for j in jobs if j.time("start")]
    ends = [(j.time("start"), j.time("end") or OPEN_END) for j in started]
    assert any(s < PERIOD_START < e for s, e in ends), "no job crosses into the month"
    assert any(s < PERIOD_END < e for s, e in ends), "no job crosses out of the month"
    assert min(s for s, _ in ends) >= dt.datetime(2026, 9, 25)

    nlp = [
        (j.time("start"), j.time("end") or OPEN_END)
        for j in started
        if j.values["account"] == "nlp-shared"
    ]
    assert any(e <= HANDOVER for _, e in nlp)
    assert any(s >= HANDOVER for s, _ in nlp)
    assert any(s < HANDOVER < e for s, e in nlp)

    array = sorted(j.values["jobid"] for j in jobs if "_" in j.values["jobid"])
    base = array[0].split("_")[0]
    assert array == [f"{base}_{i}" for i in range(4)]
    assert any(len(j.nodes) == 2 and j.gpus == 16 for j in started)


def test_tres_lists_typed_and_untyped_gpus(jobs: list[Row]) -> None:
    job = next(j for j in jobs if j.values["partition"] == "gpu-h100" and j.time("start"))
    alloc = job.values["alloctres"]
    assert re.fullmatch(
        r"billing=\d+,cpu=\d+,gres/gpu:h100=(\d+),gres/gpu=\1,mem=\d+M,node=1", alloc
    ) or re.fullmatch(r"billing=\d+,cpu=\d+,gres/gpu:h100=16,gres/gpu=16,mem=\d+M,node=2", alloc)
    assert re.fullmatch(r"billing=\d+,cpu=\d+,gres/gpu=\d+,mem=\d+M,node=\d", job.values["reqtres"])
    assert re.fullmatch(r"(\d+-)?\d{2}:\d{2}:\d{2}", job.values["elapsed"])
