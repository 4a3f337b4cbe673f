"""extractors.slurm.parse on sacct --parsable2 / --parsable text: real sacct and Open XDMoD
samples (tests/fixtures/real/), array ids and time zones."""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict

import pytest

from extractors.records import ParseResult
from extractors.slurm.parse import FIXED_WIDTH_REASON, XDMOD_FIELDS, parse_sacct_text
from extractors.slurm.values import expand_hostlist
from tests.extractors.slurm_samples import (
    MILA,
    TEXT_2205,
    XDMOD_ARRAYS,
    XDMOD_EXPECTED,
    XDMOD_LOG,
    XDMOD_NON_ENDED,
    assert_nothing_lost,
    by_id,
    data_lines,
    epoch,
    gpu_seconds_by_account,
    jobs,
    read,
    steps,
)

# --- Slurm 22.05 --parsable2 with sacct's header --------------------------------------------


@pytest.fixture(scope="module")
def text_2205() -> ParseResult:
    return parse_sacct_text(read(TEXT_2205), cluster="probe")


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
        "probe",
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


# --- Mila --parsable (trailing |) and fixed-width --------------------------------------------


def test_mila_parsable_parses_fixed_width_rejected() -> None:
    text = read(MILA)
    result = parse_sacct_text(text, cluster="mila")
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
    result = parse_sacct_text("JobID|State\n1|CANCELLED+\n", cluster="c")
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
    result = parse_sacct_text(f"JobID|State\n{job_id}|PENDING\n", cluster="c")
    assert [r.array_task_id for r in jobs(result)] == expected
    assert {r.source_line for r in jobs(result)} == {2}
    assert result.records_read == 1


# --- time zones -------------------------------------------------------------------------------


def test_zoneless_time_in_given_timezone() -> None:
    text = "JobID|Start|End\n1|2024-07-01T12:00:00|2024-01-15T12:00:00\n"
    berlin = jobs(parse_sacct_text(text, cluster="c", timezone="Europe/Berlin"))[0]
    assert berlin.start_at == dt.datetime(2024, 7, 1, 10, 0)  # CEST: 2 h earlier in UTC
    assert berlin.end_at == dt.datetime(2024, 1, 15, 11, 0)  # CET: 1 h
    utc = jobs(parse_sacct_text(text, cluster="c"))[0]
    assert utc.start_at == dt.datetime(2024, 7, 1, 12, 0)


@pytest.mark.parametrize("offset", ["+0100", "+01:00"])
def test_time_with_offset_converts(offset: str) -> None:
    text = f"JobID|Start\n1|2024-01-01T10:00:00{offset}\n"
    for tz in ("UTC", "America/New_York"):  # an explicit offset wins over `timezone`
        assert jobs(parse_sacct_text(text, cluster="c", timezone=tz))[0].start_at == dt.datetime(
            2024, 1, 1, 9
        )


def test_unknown_timezone_is_a_caller_error() -> None:
    with pytest.raises(ValueError, match="unknown timezone 'Nowhere/Land'"):
        parse_sacct_text("", timezone="Nowhere/Land")
