"""The weekly sacct files: Open XDMoD's fields, steps after their job, no node over-committed,
and the month's Slurm cases (late node, handover, array, every end state)."""

from __future__ import annotations

import collections
import datetime as dt
import re

from gpuledger.demo import DemoFiles
from tests.demo.evidence import HANDOVER, LATE_NODE_FROM, OPEN_END, PERIOD_END, PERIOD_START, Row


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
    assert len(events) == 12  # the Slurm nodes only
    for node, changes in events.items():
        held = 0
        for _, change in sorted(changes):  # at one instant releases (negative) sort first
            held += change
            assert 0 <= held <= 8, node


def test_new_node_runs_nothing_before_it_enters_service(jobs: list[Row]) -> None:
    late = [j for j in jobs if "dgx-a100-04" in j.nodes]
    assert late
    assert min(j.time("start") for j in late) >= LATE_NODE_FROM


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
