"""Gateway request logs: a realistic generated day lands; every bad record is quarantined."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from extractors.requests.parse import OUTCOMES, parse_requests_jsonl
from extractors.requests.records import REQUESTS_TABLE
from tests.conftest import FIXTURES, run_cli
from tests.fixtures.requests import generate

DAY = FIXTURES / "requests" / "gateway-2026-10-05.jsonl"
GOOD = {
    "request_id": "req-1",
    "tenant_id": "acme",
    "endpoint": "chat-prod",
    "model": "llama-3.1-70b-instruct",
    "input_tokens": 1200,
    "output_tokens": 300,
    "outcome": "success",
    "started_at": "2026-10-05T12:00:00.250+02:00",
    "finished_at": "2026-10-05T12:00:04.750+02:00",
}


def test_the_committed_day_is_the_generated_one(tmp_path: Path) -> None:
    assert generate.write(tmp_path / "day.jsonl").read_text() == DAY.read_text()


def test_a_generated_day_parses_completely() -> None:
    expected = generate.requests()
    result = parse_requests_jsonl(DAY.read_text())
    assert (result.records_read, result.rejected) == (500, [])
    rows = result.tables[REQUESTS_TABLE]
    assert sum(r.input_tokens for r in rows) == sum(e["input_tokens"] for e in expected)
    assert sum(r.output_tokens for r in rows) == sum(e["output_tokens"] for e in expected)
    assert {r.outcome for r in rows} == set(OUTCOMES)
    assert all(r.finished_at >= r.started_at for r in rows)
    assert all(r.started_at.tzinfo is None for r in rows)  # zone-less UTC


def test_offsets_are_converted_to_utc() -> None:
    (row,) = parse_requests_jsonl(json.dumps(GOOD)).tables[REQUESTS_TABLE]
    assert row.started_at == dt.datetime(2026, 10, 5, 10, 0, 0, 250000)
    assert row.finished_at == dt.datetime(2026, 10, 5, 10, 0, 4, 750000)


def test_outcome_is_case_insensitive_and_landed_lower_case() -> None:
    (row,) = parse_requests_jsonl(json.dumps(GOOD | {"outcome": "Success"})).tables[REQUESTS_TABLE]
    assert row.outcome == "success"


def test_landing_twice_is_a_no_op(home: Path) -> None:
    first = run_cli(home, None, "ingest", "requests", "--file", str(DAY))
    assert first.exit_code == 0
    assert "read 500, landed 500, quarantined 0" in first.stdout
    again = run_cli(home, None, "ingest", "requests", "--file", str(DAY))
    assert "already landed" in again.stdout


def _with(**changes: object) -> str:
    return json.dumps(GOOD | changes)


def _without(key: str) -> str:
    return json.dumps({k: v for k, v in GOOD.items() if k != key})


BAD = [
    ("invalid JSON", '{"request_id": "req-9", ', "line", "invalid JSON"),
    ("a JSON string", '"req-9"', "line", "expected a JSON object, got str"),
    *[(f"no {key}", _without(key), key, "missing") for key in GOOD],
    ("empty tenant", _with(tenant_id=" "), "tenant_id", "non-empty string"),
    ("numeric request id", _with(request_id=17), "request_id", "non-empty string"),
    ("negative tokens", _with(input_tokens=-3), "input_tokens", ">= 0"),
    ("fractional tokens", _with(output_tokens=12.5), "output_tokens", "integer"),
    ("float tokens", _with(output_tokens=12.0), "output_tokens", "integer"),
    ("tokens as text", _with(input_tokens="1200"), "input_tokens", "integer"),
    ("tokens as bool", _with(input_tokens=True), "input_tokens", "integer"),
    ("unknown outcome", _with(outcome="ok"), "outcome", "'ok' is not one of success, error"),
    ("zone-less start", _with(started_at="2026-10-05T12:00:00"), "started_at", "no zone offset"),
    ("not a time", _with(finished_at="5 Oct 2026 12:00"), "finished_at", "invalid ISO 8601"),
    (
        "finished before started",
        _with(finished_at="2026-10-05T09:59:59Z"),
        "finished_at",
        "is before started_at",
    ),
]


@pytest.mark.parametrize(("case", "line", "field", "reason"), BAD, ids=[b[0] for b in BAD])
def test_bad_record_is_quarantined_with_line_and_field(
    case: str, line: str, field: str, reason: str
) -> None:
    other = json.dumps(GOOD | {"request_id": "req-2"})
    result = parse_requests_jsonl("\n".join([other, line]))
    assert result.records_read == 2
    (rejected,) = result.rejected
    assert (rejected.line, rejected.field) == (2, field)
    assert reason in rejected.reason
    assert [r.request_id for r in result.tables[REQUESTS_TABLE]] == ["req-2"]


def test_a_duplicate_request_id_in_a_file_is_quarantined() -> None:
    lines = [json.dumps(GOOD), _with(output_tokens=301), json.dumps(GOOD | {"request_id": "r2"})]
    result = parse_requests_jsonl("\n".join(lines))
    (rejected,) = result.rejected
    assert (rejected.line, rejected.field) == (2, "request_id")
    assert "duplicate request_id 'req-1' (first on line 1)" in rejected.reason
    assert [r.output_tokens for r in result.tables[REQUESTS_TABLE]] == [300, 300]


def test_a_rejected_first_copy_does_not_shadow_a_good_second() -> None:
    lines = [_with(input_tokens=-1), json.dumps(GOOD)]
    result = parse_requests_jsonl("\n".join(lines))
    assert [r.line for r in result.rejected] == [1]
    assert len(result.tables[REQUESTS_TABLE]) == 1


def test_the_cli_names_file_line_and_field(home: Path, tmp_path: Path) -> None:
    path = tmp_path / "gateway.jsonl"
    path.write_text("\n".join([json.dumps(GOOD), _with(request_id="r3", outcome="ok")]) + "\n")
    result = run_cli(home, None, "ingest", "requests", "--file", str(path))
    assert result.exit_code == 0
    assert "read 2, landed 1, quarantined 1" in result.stdout
    assert f"quarantined {path}:2: field outcome: 'ok' is not one of" in result.stdout


def test_a_csv_export_is_a_file_error(home: Path, tmp_path: Path) -> None:
    path = tmp_path / "gateway.csv"
    path.write_text("request_id,tenant_id\nreq-1,acme\n")
    result = run_cli(home, None, "ingest", "requests", "--file", str(path))
    assert result.exit_code == 1
    assert f"{path}: line 1: not JSON Lines" in result.stderr
