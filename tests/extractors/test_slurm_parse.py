"""extractors.slurm.parse against real sacct / Open XDMoD samples (tests/fixtures/real/)."""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from pathlib import Path

import pytest

from extractors.records import ParseResult
from extractors.slurm.parse import (
    FIXED_WIDTH_REASON,
    XDMOD_FIELDS,
    expand_hostlist,
    gpu_tres,
    parse_duration_seconds,
    parse_sacct_json,
    parse_sacct_text,
    parse_tres,
    tres_gpu_count,
)
from extractors.slurm.records import JOBS_TABLE, STEPS_TABLE, SlurmJob

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
TEXT_2205 = "slurm/slurm22.05_sacct_parsable2.txt"
JSON_2205 = "slurm/slurm22.05_sacct.json"
JSON_2108 = "slurm/clockwork_sacct_json_slurm21.08_dbv0.0.37.json"
MILA = "slurm/mila_clockwork_sacct_parsable_and_fixedwidth.txt"
XDMOD_LOG = "xdmod/shredder_input_accounting-logs.log"
XDMOD_EXPECTED = "xdmod/shredder_expected_output_accounting-logs_head.json"
XDMOD_ARRAYS = "xdmod/shredder_input_job-arrays_excerpt.log"
XDMOD_NON_ENDED = "xdmod/shredder_input_non-ended-job-state.log"
GPU_COUNT_CASES = "xdmod/slurm-resource-parser_alloc-tres-gpu-count.json"


def read(name: str) -> str:
    return (REAL / name).read_text(encoding="utf-8")


def jobs(result: ParseResult) -> list[SlurmJob]:
    return result.tables.get(JOBS_TABLE, [])  # type: ignore[return-value]


def steps(result: ParseResult) -> list[SlurmJob]:
    return result.tables.get(STEPS_TABLE, [])  # type: ignore[return-value]


def by_id(rows: list[SlurmJob]) -> dict[str, SlurmJob]:
    return {r.job_id: r for r in rows}


def gpu_seconds_by_account(rows: list[SlurmJob]) -> dict[str, float]:
    """GPU-seconds held: (end - start) x alloc_gpu_count, per account."""
    out: dict[str, float] = defaultdict(float)
    for r in rows:
        if r.start_at and r.end_at:
            out[r.account or ""] += (r.end_at - r.start_at).total_seconds() * r.alloc_gpu_count
    return {k: v for k, v in out.items() if v}


def data_lines(text: str, *, headers: tuple[int, ...] = ()) -> set[int]:
    return {n for n, ln in enumerate(text.split("\n"), 1) if ln.strip() and n not in headers}


def assert_nothing_lost(result: ParseResult, expected_lines: set[int]) -> None:
    """Every input line counted once and either landed (>= 1 row) or rejected, never both."""
    landed = {r.source_line for rows in result.tables.values() for r in rows}  # type: ignore[attr-defined]
    rejected = [r.line for r in result.rejected]
    assert len(rejected) == len(set(rejected))
    assert landed.isdisjoint(rejected)
    assert landed | set(rejected) == expected_lines
    assert result.records_read == len(expected_lines)


def epoch(value: dt.datetime | None) -> int | None:
    return None if value is None else int(value.replace(tzinfo=dt.UTC).timestamp())


# --- Slurm 22.05 --parsable2 with sacct's header --------------------------------------------


@pytest.fixture(scope="module")
def text_2205() -> ParseResult:
    return parse_sacct_text(read(TEXT_2205))


def test_2205_text_jobs_steps_and_every_line(text_2205: ParseResult) -> None:
    assert not text_2205.rejected
    assert sorted(r.job_id for r in jobs(text_2205)) == sorted(
        ["11", "12", "13", "14", "15", "17", "16_0", "16_1"]
    )
    assert len(steps(text_2205)) == 18
    assert all(r.step_id is not None for r in steps(text_2205))
    assert all(r.step_id is None and "." not in r.job_id for r in jobs(text_2205))
    assert_nothing_lost(text_2205, data_lines(read(TEXT_2205), headers=(1,)))
    assert text_2205.records_read == len(jobs(text_2205)) + len(steps(text_2205))


def test_2205_text_gpu_seconds_by_account(text_2205: ParseResult) -> None:
    assert gpu_seconds_by_account(jobs(text_2205)) == {"atlas": 13, "boreal": 24}


def test_2205_text_fields(text_2205: ParseResult) -> None:
    j = by_id(jobs(text_2205))
    ok = j["11"]
    assert (ok.cluster, ok.user_name, ok.account, ok.partition, ok.qos) == (
        "default",
        "alice",
        "atlas",
        "gpu",
        "normal",
    )
    assert ok.start_at == dt.datetime(2026, 11, 29, 12, 14, 13)
    assert ok.end_at == dt.datetime(2026, 11, 29, 12, 14, 18)
    assert ok.elapsed_seconds == 5
    # gres/gpu:h100=2,gres/gpu=2 is 2 GPUs, not 4; ReqTRES has only the untyped entry
    assert (ok.alloc_gpu_count, ok.req_gpu_count, ok.gpu_type, ok.mig_profile) == (
        2,
        2,
        "h100",
        None,
    )
    assert ok.alloc_tres == "billing=1,cpu=1,gres/gpu:h100=2,gres/gpu=2,mem=1000M,node=1"
    assert j["12"].alloc_gpu_count == j["12"].req_gpu_count == 4
    assert (j["14"].alloc_gpu_count, j["14"].gpu_type) == (0, None)
    assert (j["15"].state, j["15"].exit_code, j["15"].exit_signal) == ("FAILED", 1, 0)
    assert (j["17"].state, j["17"].state_detail) == ("CANCELLED", "by 0")
    assert j["16_0"].array_job_id == "16" and j["16_0"].array_task_id == "0"
    assert j["16_1"].array_task_id == "1"


def test_2205_text_steps(text_2205: ParseResult) -> None:
    s = {(r.job_id, r.step_id): r for r in steps(text_2205)}
    assert set(s) >= {("11", "batch"), ("11", "extern"), ("13", "0"), ("13", "1")}
    batch = s[("16_0", "batch")]
    assert (batch.array_job_id, batch.array_task_id, batch.job_name) == ("16", "0", "batch")
    assert batch.user_name is None and batch.account == "boreal"
    cancelled = s[("17", "batch")]
    assert (cancelled.state, cancelled.exit_code, cancelled.exit_signal) == ("CANCELLED", 0, 15)
    assert s[("13", "1")].elapsed_seconds == 0


def test_cluster_argument_and_column() -> None:
    assert {r.cluster for r in jobs(parse_sacct_text(read(TEXT_2205), cluster="probe"))} == {
        "probe"
    }
    xdmod = parse_sacct_text(read(XDMOD_LOG), cluster="ignored")
    assert {r.cluster for r in jobs(xdmod)} == {"ub-hpc"}  # the Cluster column wins


# --- Slurm 22.05 --json (dbv0.0.38): the same jobs --------------------------------------------


@pytest.fixture(scope="module")
def json_2205() -> ParseResult:
    return parse_sacct_json(read(JSON_2205))


def test_2205_json_same_jobs_as_text(json_2205: ParseResult, text_2205: ParseResult) -> None:
    assert not json_2205.rejected
    assert json_2205.records_read == len(jobs(json_2205)) + len(steps(json_2205)) == 26
    text_jobs, json_jobs = by_id(jobs(text_2205)), by_id(jobs(json_2205))
    assert set(json_jobs) == set(text_jobs)
    for job_id, t in text_jobs.items():
        js = json_jobs[job_id]
        assert js.cluster == "probe"
        for name in ("account", "user_name", "partition", "qos", "job_name", "state"):
            assert getattr(js, name) == getattr(t, name), (job_id, name)
        for name in ("submit_at", "start_at", "end_at", "elapsed_seconds", "alloc_gpu_count"):
            assert getattr(js, name) == getattr(t, name), (job_id, name)
        assert (js.req_gpu_count, js.gpu_type, js.node_list) == (
            t.req_gpu_count,
            t.gpu_type,
            t.node_list,
        )
    text_steps = {(r.job_id, r.step_id): r.alloc_gpu_count for r in steps(text_2205)}
    assert {(r.job_id, r.step_id): r.alloc_gpu_count for r in steps(json_2205)} == text_steps


def test_2205_json_gpu_seconds_match_text(json_2205: ParseResult) -> None:
    assert gpu_seconds_by_account(jobs(json_2205)) == {"atlas": 13, "boreal": 24}


def test_2205_json_details(json_2205: ParseResult) -> None:
    j = by_id(jobs(json_2205))
    # array task 16_0 has raw id 19 in --json; 16_1 kept the array's id 16
    assert (j["16_0"].job_id_raw, j["16_0"].array_job_id, j["16_0"].array_task_id) == (
        "19",
        "16",
        "0",
    )
    assert j["16_1"].job_id_raw == "16"
    # Slurm 22.05 --json reports exit code 0 for the FAILED job (the text says 1:0): kept as-is
    assert (j["15"].state, j["15"].exit_code) == ("FAILED", 0)
    assert j["11"].alloc_tres == "cpu=1,mem=1000M,node=1,billing=1,gres/gpu=2,gres/gpu:h100=2"
    assert (j["13"].cpu_count, j["13"].node_count, j["13"].timelimit_minutes) == (2, 1, None)
    s = {(r.job_id, r.step_id): r for r in steps(json_2205)}
    cancelled = s[("17", "batch")]
    assert (cancelled.state, cancelled.exit_code, cancelled.exit_signal) == ("CANCELLED", 0, 15)
    assert s[("16_0", "batch")].job_id_raw == "19.batch"
    assert s[("13", "0")].job_name == "sleep"


# --- Slurm 21.08 --json (dbv0.0.37, clockwork) ----------------------------------------------


def test_clockwork_json_2108() -> None:
    result = parse_sacct_json(read(JSON_2108))
    assert not result.rejected and result.records_read == 2 and not steps(result)
    j = by_id(jobs(result))
    assert {k: v.state for k, v in j.items()} == {"1_7": "NODE_FAIL", "2_0": "REQUEUED"}
    node_fail = j["1_7"]
    assert node_fail.end_at is None  # end 0 means not set
    assert node_fail.start_at == dt.datetime(2023, 3, 30, 16, 25, 4)
    assert (node_fail.cluster, node_fail.account) == ("cedar", "def-cerise-rrg")
    assert (node_fail.timelimit_minutes, node_fail.alloc_gpu_count, node_fail.cpu_count) == (
        1440,
        1,
        4,
    )
    assert j["2_0"].node_list == "cdr2"


def test_json_data_parser_v0040_wrapped_numbers() -> None:
    def num(n: int | None, *, infinite: bool = False) -> dict[str, object]:
        return {"set": n is not None, "infinite": infinite, "number": n or 0}

    doc = {
        "jobs": [
            {
                "job_id": 41,
                "array": {"job_id": 40, "task_id": num(3), "task": ""},
                "cluster": "c1",
                "account": "atlas",
                "user": "alice",
                "name": "train",
                "state": {"current": ["COMPLETED"], "reason": "None"},
                "exit_code": {
                    "status": ["SIGNALED"],
                    "return_code": num(None),
                    "signal": {"id": num(9), "name": "KILL"},
                },
                "time": {
                    "submission": 1700000000,
                    "eligible": 1700000000,
                    "start": 1700000010,
                    "end": 1700000070,
                    "elapsed": 60,
                    "limit": num(None, infinite=True),
                },
                "tres": {
                    "allocated": [
                        {"type": "gres", "name": "gpu:a100_3g.20gb", "count": 1},
                        {"type": "gres", "name": "gpu:a100_1g.10gb", "count": 2},
                    ],
                    "requested": [],
                },
                "steps": [
                    {
                        "step": {"id": "41.batch", "name": "batch"},
                        "state": ["COMPLETED"],
                        "time": {"start": 1700000010, "end": 1700000070, "elapsed": 60},
                        "exit_code": {"return_code": num(0)},
                        "tres": {"allocated": []},
                        "nodes": {"range": "g[1-2]", "count": 2},
                    }
                ],
            }
        ]
    }
    result = parse_sacct_json(json.dumps(doc))
    assert not result.rejected and result.records_read == 2
    (job,) = jobs(result)
    assert (job.job_id, job.array_job_id, job.array_task_id, job.job_id_raw) == (
        "40_3",
        "40",
        "3",
        "41",
    )
    assert (job.exit_code, job.exit_signal, job.timelimit_minutes) == (0, 9, None)
    assert (job.alloc_gpu_count, job.gpu_type, job.mig_profile) == (3, "a100_3g.20gb", "3g.20gb")
    assert job.end_at == dt.datetime(2023, 11, 14, 22, 14, 30)
    (step,) = steps(result)
    assert (step.job_id, step.step_id, step.node_list, step.node_count) == (
        "40_3",
        "batch",
        "g[1-2]",
        2,
    )


# --- Mila --parsable (trailing |) and fixed-width --------------------------------------------


def test_mila_parsable_parses_fixed_width_rejected() -> None:
    text = read(MILA)
    result = parse_sacct_text(text)
    j = by_id(jobs(result))
    assert set(j) == {"2330417", "2331586"}
    a = j["2330417"]
    assert (a.account, a.uid, a.user_name, a.job_name) == (
        "mila",
        "720391130",
        "goncalo-filipe.torcato-mordido",
        "train_cifar.sh",
    )
    assert (a.req_tres, a.req_gpu_count, j["2331586"].req_gpu_count) == (
        "cpu=1,gres/gpu=1,mem=32G,node=1",
        1,
        0,
    )
    assert a.end_at == dt.datetime(2022, 10, 6, 12, 14, 16)
    rejected = {r.line: (r.field, r.reason) for r in result.rejected}
    # the fixed-width block (prompt, header, dashes, 2 rows) and the prompt line with a `|`
    assert {n for n, (_, reason) in rejected.items() if reason == FIXED_WIDTH_REASON} == {
        1,
        2,
        3,
        4,
        5,
    }
    assert rejected[6] == ("line", "expected 26 fields, got 2")
    assert_nothing_lost(result, data_lines(text, headers=(7,)))


def test_fixed_width_state_truncation_tolerated() -> None:
    result = parse_sacct_text("JobID|State\n1|CANCELLED+\n")
    assert jobs(result)[0].state == "CANCELLED"


# --- Open XDMoD 26-field input (no header) --------------------------------------------------


@pytest.fixture(scope="module")
def xdmod() -> ParseResult:
    return parse_sacct_text(read(XDMOD_LOG))


# The expected-output file is a head: cut inside the second job, so close it before loading.
EXPECTED_HEAD = json.loads(read(XDMOD_EXPECTED).rstrip() + "\n}]")


@pytest.mark.parametrize("expected", EXPECTED_HEAD, ids=lambda e: e["job_id"])
def test_xdmod_matches_shredder_expected_output(xdmod: ParseResult, expected: dict) -> None:
    job = by_id(jobs(xdmod))[expected["job_id"]]
    assert job.job_id_raw == expected["job_id_raw"]
    assert (job.partition, job.qos, job.account, job.group_name, job.gid) == (
        expected["partition_name"],
        expected["qos_name"],
        expected["account_name"],
        expected["group_name"],
        expected["gid_number"],
    )
    assert (job.user_name, job.uid, job.job_name) == (
        expected["user_name"],
        expected["uid_number"],
        expected["job_name"],
    )
    assert epoch(job.submit_at) == expected["submit_time"]
    assert epoch(job.eligible_at) == expected["eligible_time"]
    assert epoch(job.start_at) == expected["start_time"]
    assert epoch(job.end_at) == expected["end_time"]
    assert job.elapsed_seconds == expected["elapsed"]
    assert job.timelimit_minutes is not None
    assert job.timelimit_minutes * 60 == expected["timelimit"]
    assert f"{job.exit_code}:{job.exit_signal}" == expected["exit_code"]
    assert job.state == expected["state"].split()[0]
    assert (str(job.node_count), str(job.cpu_count)) == (expected["nnodes"], expected["ncpus"])
    assert job.alloc_tres == expected["alloc_tres"]
    assert (job.req_tres or "") == expected["req_tres"]
    assert job.node_list == expected["node_list"]
    assert job.alloc_gpu_count == expected["ngpus"]
    assert len(expand_hostlist(job.node_list)) == job.node_count


def test_xdmod_other_rows(xdmod: ParseResult) -> None:
    assert not xdmod.rejected
    assert_nothing_lost(xdmod, data_lines(read(XDMOD_LOG)))
    j = by_id(jobs(xdmod))
    assert (j["4103947"].state, j["4103947"].timelimit_minutes) == ("TIMEOUT", 3 * 24 * 60)
    cancelled = j["4107166"]
    assert (cancelled.state, cancelled.state_detail) == ("CANCELLED", "by 102216")
    assert cancelled.elapsed_seconds == 252184  # 2-22:03:04
    assert (j["4107219"].elapsed_seconds, j["4107219"].timelimit_minutes) == (50449, 860)
    gpu = j["5692623"]
    # `...|0n||gres/gpu=2||cpn-...`: ReqTRES empty, AllocTRES gres/gpu=2, Timelimit empty
    assert (gpu.req_tres, gpu.alloc_tres) == (None, "gres/gpu=2")
    assert (gpu.req_gpu_count, gpu.alloc_gpu_count, gpu.gpu_type) == (0, 2, None)
    assert gpu.eligible_at is None  # Unknown
    assert (gpu.partition, gpu.timelimit_minutes, gpu.node_count) == (None, None, 0)
    assert expand_hostlist(gpu.node_list or "") == ["cpn-k16-35-01", "cpn-k16-37-01"]


def test_gpu_only_in_reqtres_is_requested_not_allocated() -> None:
    fields = read(XDMOD_LOG).splitlines()[3].split("|")
    req, alloc = XDMOD_FIELDS.index("reqtres"), XDMOD_FIELDS.index("alloctres")
    fields[req], fields[alloc] = fields[alloc], fields[req]
    (job,) = jobs(parse_sacct_text("|".join(fields)))
    assert (job.req_tres, job.alloc_tres) == ("gres/gpu=2", None)
    assert (job.req_gpu_count, job.alloc_gpu_count) == (2, 0)


def test_xdmod_parsable_trailing_pipe_is_the_same(xdmod: ParseResult) -> None:
    with_pipe = "\n".join(f"{ln}|" for ln in read(XDMOD_LOG).splitlines())
    assert parse_sacct_text(with_pipe).tables == xdmod.tables


def test_xdmod_jobname_may_contain_pipe() -> None:
    line = read(XDMOD_LOG).splitlines()[2]
    result = parse_sacct_text(line + "|with|pipes")
    assert jobs(result)[0].job_name == "anonjobname|with|pipes"
    assert len(XDMOD_FIELDS) == 26


def test_xdmod_non_ended_states() -> None:
    result = parse_sacct_text(read(XDMOD_NON_ENDED))
    j = by_id(jobs(result))
    assert (j["3451067"].state, j["3483276"].state) == ("RUNNING", "PENDING")
    assert j["3483276"].start_at is None
    assert (j["3483276"].alloc_tres, j["3483276"].req_tres) == (
        None,
        "billing=40,cpu=40,mem=120000M,node=1",
    )


# --- array ids --------------------------------------------------------------------------------


def test_xdmod_job_arrays_expand() -> None:
    result = parse_sacct_text(read(XDMOD_ARRAYS))
    assert not result.rejected and result.records_read == 3
    by_line: dict[int, list[str]] = defaultdict(list)
    for r in jobs(result):
        by_line[r.source_line].append(r.job_id)
        assert r.array_job_id == "4103947" and r.job_id == f"4103947_{r.array_task_id}"
        assert r.job_id_raw == "4103947"
    assert dict(by_line) == {
        1: ["4103947_100"],
        2: ["4103947_1", "4103947_2", "4103947_3"],
        3: ["4103947_1", "4103947_5"],
    }


@pytest.mark.parametrize(
    ("job_id", "expected"),
    [
        ("4103947_[9-11,20]", ["9", "10", "11", "20"]),
        ("7_[1-3]", ["1", "2", "3"]),
        ("7_[1,5]", ["1", "5"]),
        ("7_[1-100%4]", [str(n) for n in range(1, 101)]),
        ("7_[5]", ["5"]),
    ],
)
def test_array_ranges(job_id: str, expected: list[str]) -> None:
    result = parse_sacct_text(f"JobID|State\n{job_id}|PENDING\n")
    assert [r.array_task_id for r in jobs(result)] == expected
    assert {r.source_line for r in jobs(result)} == {2}
    assert result.records_read == 1


# --- TRES / GPU count ---------------------------------------------------------------------------


@pytest.mark.parametrize(("tres", "expected"), json.loads(read(GPU_COUNT_CASES)))
def test_xdmod_alloc_tres_gpu_count_cases(tres: str, expected: int) -> None:
    assert tres_gpu_count(tres) == expected


@pytest.mark.parametrize(
    ("tres", "count", "gpu_type", "mig"),
    [
        ("billing=1,cpu=1,gres/gpu:h100=2,gres/gpu=2,mem=1000M,node=1", 2, "h100", None),
        ("gres/gpu=2,gres/gpu:h100=2", 2, "h100", None),
        ("gres/gpu:a100=1,gres/gpu:v100=2", 3, "a100", None),
        ("gres/gpu:a100_3g.20gb=1,gres/gpu=1", 1, "a100_3g.20gb", "3g.20gb"),
        ("gres/gpu:1g.10gb=2", 2, "1g.10gb", "1g.10gb"),
        ("gres/gpu:nvidia_h100_1g.10gb+me=1", 1, "nvidia_h100_1g.10gb+me", "1g.10gb+me"),
        ("gres/gpu:volta=2,mem=125G,node=1", 2, "volta", None),
        ("gres/gpumem=40G,gres/gpu=1,gres/mps=100", 1, None, None),
        ("", 0, None, None),
    ],
)
def test_gpu_rule(tres: str, count: int, gpu_type: str | None, mig: str | None) -> None:
    got = gpu_tres(parse_tres(tres))
    assert (got.count, got.gpu_type, got.mig_profile) == (count, gpu_type, mig)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("00:00:05", 5),
        ("2-22:03:04", 252184),
        ("3-00:00:00", 259200),
        ("14:20:00", 51600),
        ("05:30", 330),
        ("01:02:03.456", 3723),
        ("UNLIMITED", None),
        ("Partition_Limit", None),
        ("", None),
    ],
)
def test_durations(text: str, seconds: int | None) -> None:
    assert parse_duration_seconds(text) == seconds


@pytest.mark.parametrize(
    ("expr", "hosts"),
    [
        ("gpu[01-04]", ["gpu01", "gpu02", "gpu03", "gpu04"]),
        (
            "d09n04s[01-02],d13n[03,05,07-08,16]",
            ["d09n04s01", "d09n04s02", "d13n03", "d13n05", "d13n07", "d13n08", "d13n16"],
        ),
        ("cpn-k16-35-01,cpn-k16-37-01", ["cpn-k16-35-01", "cpn-k16-37-01"]),
        ("rack[1-2]-n[1,3]", ["rack1-n1", "rack1-n3", "rack2-n1", "rack2-n3"]),
        ("gpunode01", ["gpunode01"]),
        ("None assigned", []),
    ],
)
def test_expand_hostlist(expr: str, hosts: list[str]) -> None:
    assert expand_hostlist(expr) == hosts


@pytest.mark.parametrize("expr", ["gpu[01-", "gpu[a-b]", "gpu[3-1]", "a,,b", "gpu]1["])
def test_expand_hostlist_rejects_malformed(expr: str) -> None:
    with pytest.raises(ValueError):
        expand_hostlist(expr)


# --- time zones -------------------------------------------------------------------------------


def test_zoneless_time_in_given_timezone() -> None:
    text = "JobID|Start|End\n1|2024-07-01T12:00:00|2024-01-15T12:00:00\n"
    berlin = jobs(parse_sacct_text(text, timezone="Europe/Berlin"))[0]
    assert berlin.start_at == dt.datetime(2024, 7, 1, 10, 0)  # CEST: 2 h earlier in UTC
    assert berlin.end_at == dt.datetime(2024, 1, 15, 11, 0)  # CET: 1 h
    utc = jobs(parse_sacct_text(text))[0]
    assert utc.start_at == dt.datetime(2024, 7, 1, 12, 0)


@pytest.mark.parametrize("offset", ["+0100", "+01:00"])
def test_time_with_offset_converts(offset: str) -> None:
    text = f"JobID|Start\n1|2024-01-01T10:00:00{offset}\n"
    for tz in ("UTC", "America/New_York"):  # an explicit offset wins over `timezone`
        assert jobs(parse_sacct_text(text, timezone=tz))[0].start_at == dt.datetime(2024, 1, 1, 9)


def test_unknown_timezone_is_a_caller_error() -> None:
    with pytest.raises(ValueError, match="unknown timezone 'Nowhere/Land'"):
        parse_sacct_text("", timezone="Nowhere/Land")


# --- bad inputs: rejected with line and field, the rest still lands ---------------------------

TEXT_COLUMNS = read(TEXT_2205).splitlines()[0].split("|")


def _mutate(line_no: int, column: str, value: str) -> str:
    lines = read(TEXT_2205).splitlines()
    fields = lines[line_no - 1].split("|")
    fields[TEXT_COLUMNS.index(column)] = value
    lines[line_no - 1] = "|".join(fields)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("line_no", "column", "value", "field", "reason"),
    [
        (2, "End", "xyz", "End", "invalid timestamp 'xyz'"),
        (9, "Submit", "2026-13-01T00:00:00", "Submit", "invalid timestamp '2026-13-01T00:00:00'"),
        (5, "Elapsed", "1:2:3:4", "Elapsed", "invalid duration '1:2:3:4'"),
        (16, "ExitCode", "x:0", "ExitCode", "invalid exit code 'x:0' (expected code:signal)"),
        (2, "AllocTRES", "cpu=1,gres/gpu=x", "AllocTRES", "invalid GPU count gres/gpu='x'"),
        (5, "ReqTRES", "gres/gpu:h100=-1", "ReqTRES", "invalid GPU count gres/gpu:h100='-1'"),
        (3, "AllocTRES", "cpu=1,garbage", "AllocTRES", "malformed TRES entry 'garbage'"),
        (2, "JobID", "", "JobID", "empty JobID"),
        (22, "JobID", "16_[1-x]", "JobID", "invalid array task list '1-x'"),
    ],
)
def test_bad_field_rejected(line_no: int, column: str, value: str, field: str, reason: str) -> None:
    text = _mutate(line_no, column, value)
    result = parse_sacct_text(text)
    assert [(r.line, r.field, r.reason) for r in result.rejected] == [(line_no, field, reason)]
    assert result.rejected[0].raw == text.splitlines()[line_no - 1]
    assert_nothing_lost(result, data_lines(text, headers=(1,)))


@pytest.mark.parametrize(
    ("bad_line", "reason"),
    [
        ("11|ok_atlas|alice", "expected 15 fields, got 3"),
        ("   11  ok_atlas  alice  COMPLETED+", FIXED_WIDTH_REASON),
    ],
)
def test_bad_line_rejected(bad_line: str, reason: str) -> None:
    lines = read(TEXT_2205).splitlines()
    text = "\n".join([*lines[:4], bad_line, "", *lines[4:]])
    result = parse_sacct_text(text)
    assert [(r.line, r.field, r.reason) for r in result.rejected] == [(5, "line", reason)]
    assert len(jobs(result)) == 8 and len(steps(result)) == 18
    assert_nothing_lost(result, data_lines(text, headers=(1,)))


def test_xdmod_wrong_field_count_and_bad_timelimit() -> None:
    lines = read(XDMOD_LOG).splitlines()
    fields = lines[1].split("|")
    fields[XDMOD_FIELDS.index("timelimit")] = "forever"
    text = "\n".join([lines[0], "1|2|3", "|".join(fields), lines[2]])
    result = parse_sacct_text(text)
    assert [(r.line, r.field, r.reason) for r in result.rejected] == [
        (2, "line", "expected 26 fields, got 3"),
        (3, "Timelimit", "invalid duration 'forever'"),
    ]
    assert [r.job_id for r in jobs(result)] == ["4103947", "4107219"]


def test_invalid_json_rejected() -> None:
    text = read(JSON_2205)[:5000]
    result = parse_sacct_json(text)
    assert result.records_read == 1 and not result.tables
    (rej,) = result.rejected
    assert rej.field == "json" and rej.reason.startswith("invalid JSON: ")
    assert rej.line == len(text.splitlines())


def test_json_job_without_job_id_rejected() -> None:
    doc = json.loads(read(JSON_2205))
    del doc["jobs"][2]["job_id"]  # job 13 and its 4 steps
    result = parse_sacct_json(json.dumps(doc))
    assert {(r.line, r.field) for r in result.rejected} == {(3, "job_id")}
    assert [r.reason for r in result.rejected] == ["job has no job_id"] + [
        "parent job rejected: job has no job_id"
    ] * 4
    assert "13" not in by_id(jobs(result)) and len(jobs(result)) == 7
    assert len(steps(result)) == 14
    assert result.records_read == 26 == len(jobs(result)) + len(steps(result)) + 5


def test_json_without_jobs_list_rejected() -> None:
    result = parse_sacct_json('{"meta": {}, "errors": []}')
    assert [(r.line, r.field) for r in result.rejected] == [(1, "jobs")]
