"""extractors.slurm.parse on sacct --json: Slurm 21.08, 22.05 and data_parser v0.0.40+."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from extractors.records import ParseResult
from extractors.slurm.parse import parse_sacct_json, parse_sacct_text
from tests.extractors.slurm_samples import (
    JSON_2108,
    JSON_2205,
    TEXT_2205,
    by_id,
    gpu_seconds_by_account,
    jobs,
    read,
    steps,
)


@pytest.fixture(scope="module")
def text_2205() -> ParseResult:
    return parse_sacct_text(read(TEXT_2205), cluster="probe")


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


# --- a job's cluster, a heterogeneous job, a running job --------------------------------------


def _first_job(**changes: object) -> str:
    document = json.loads(read(JSON_2205))
    job = document["jobs"][0]
    for key, value in changes.items():
        job[key] = value
    document["jobs"] = [job]
    return json.dumps(document)


def test_a_job_naming_no_cluster_needs_one() -> None:
    text = _first_job(cluster="")
    refused = parse_sacct_json(text)
    reasons = [(r.line, r.field, r.reason) for r in refused.rejected]
    assert reasons[0] == (1, "cluster", "the job names no cluster: give --cluster NAME")
    assert len(reasons) == refused.records_read  # its steps go with it
    assert not jobs(refused)
    assert {r.cluster for r in jobs(parse_sacct_json(text, cluster="probe"))} == {"probe"}


def test_a_het_job_component_is_named_as_sacct_text_names_it() -> None:
    result = parse_sacct_json(_first_job(het={"job_id": 176, "job_offset": 1}))
    (job,) = jobs(result)
    assert (job.job_id, job.het_job_id, job.het_job_offset) == ("176+1", "176", 1)
    assert {step.job_id for step in steps(result)} == {"176+1"}


def test_a_running_job_ends_provisionally_at_start_plus_elapsed() -> None:
    document = json.loads(_first_job())
    time = document["jobs"][0]["time"]
    time["end"], time["elapsed"] = 0, 3600
    result = parse_sacct_json(json.dumps(document))
    (job,) = jobs(result)
    start = dt.datetime.fromtimestamp(time["start"], dt.UTC).replace(tzinfo=None)
    assert (job.end_at, job.end_basis) == (None, "elapsed")
    assert job.provisional_end_at == start + dt.timedelta(hours=1)
    assert (result.extracted_at, result.extracted_at_basis) == (
        start + dt.timedelta(hours=1),
        "sacct_elapsed",
    )
