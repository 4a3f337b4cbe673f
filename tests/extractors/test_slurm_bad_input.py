"""extractors.slurm.parse on bad input: a record is rejected with its line, field and reason,
and the rest still lands."""

from __future__ import annotations

import json

import pytest

from extractors.slurm.parse import (
    FIXED_WIDTH_REASON,
    XDMOD_FIELDS,
    parse_sacct_json,
    parse_sacct_text,
)
from tests.extractors.slurm_samples import (
    JSON_2205,
    TEXT_2205,
    XDMOD_LOG,
    assert_nothing_lost,
    by_id,
    data_lines,
    jobs,
    read,
    steps,
)

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
    result = parse_sacct_text(text, cluster="probe")
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
    result = parse_sacct_text(text, cluster="probe")
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
