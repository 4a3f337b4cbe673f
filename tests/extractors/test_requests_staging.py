"""Request staging: one row per request_id, the latest landed report winning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuledger.core.home import DEMO_POLICY_DIR
from gpuledger.core.warehouse import prepare, run_dbt
from tests.conftest import FIXTURES, run_cli, sql

DAY = FIXTURES / "requests" / "gateway-2026-10-05.jsonl"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("requests") / "home"
    first = json.loads(DAY.read_text().splitlines()[0])
    corrected = tmp_path_factory.mktemp("files") / "reexport.jsonl"
    corrected.write_text(json.dumps(first | {"output_tokens": 999, "outcome": "error"}) + "\n")
    # the re-export was extracted an hour after the day's log (a modification time is not)
    for path, extracted in ((DAY, "2026-10-06T00:00:00Z"), (corrected, "2026-10-06T01:00:00Z")):
        ingested = run_cli(
            home, None, "ingest", "requests", "--file", str(path), "--extracted-at", extracted
        )
        assert ingested.exit_code == 0
    prepare(home, DEMO_POLICY_DIR)  # this source's staging models and what they read
    run_dbt(
        home,
        ["build", "--select", "+path:models/staging/requests", "--indirect-selection", "cautious"],
    )
    return home


def test_one_row_per_request(built: Path) -> None:
    rows = sql(
        built,
        "select count(*), count(distinct request_id) from staging.stg_requests__requests",
    )
    assert rows == [(500, 500)]


def test_the_latest_report_wins(built: Path) -> None:
    rows = sql(
        built,
        "select output_tokens, outcome, is_success from staging.stg_requests__requests "
        "where request_id = 'req-20261005-00000'",
    )
    assert rows == [(999, "error", False)]


def test_tokens_and_outcomes_add_up(built: Path) -> None:
    expected = [json.loads(line) for line in DAY.read_text().splitlines()[1:]]
    (inputs, successes) = sql(
        built,
        "select sum(input_tokens), count(*) filter (where is_success) "
        "from staging.stg_requests__requests where request_id <> 'req-20261005-00000'",
    )[0]
    assert inputs == sum(r["input_tokens"] for r in expected)
    assert successes == sum(r["outcome"] == "success" for r in expected)


def test_durations_in_seconds(built: Path) -> None:
    rows = sql(
        built,
        "select min(duration_seconds) >= 0, max(duration_seconds) "
        "from staging.stg_requests__requests",
    )
    assert rows == [(True, 60.0)]  # the timeouts run 60 s
