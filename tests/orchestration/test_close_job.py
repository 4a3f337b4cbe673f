"""The monthly_close job in process: blocked by a failing check, published when the checks
pass, never twice; late data becomes a correction of the next open period while the closed
rows keep their hash; a reopen keeps the old close and the re-close is version 2.

The fixtures build on each other (one home, one story), each stage run once per module.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest
from dagster import ExecuteInProcessResult

from gpuledger.core.ledger import current_close, lines_hash, published_lines
from orchestration.outcomes import ALREADY_CLOSED, OUTCOME_KEY
from tests.conftest import Job, run_cli, sql
from tests.orchestration.conftest import (
    checks_by_name,
    close_config,
    drop_in_inbox,
    execute,
    land_march_and_april,
    policies,
    step_failures,
)


@dataclass(frozen=True)
class Story:
    home: Path
    unmapped: Path
    mapped: Path
    tmp: Path


@pytest.fixture(scope="module")
def story(tmp_path_factory: pytest.TempPathFactory) -> Story:
    tmp = tmp_path_factory.mktemp("close")
    home = tmp / "home"
    land_march_and_april(home, tmp)
    unmapped, mapped = policies(tmp)
    return Story(home, unmapped, mapped, tmp)


@pytest.fixture(scope="module")
def blocked(story: Story) -> ExecuteInProcessResult:
    return execute(
        "monthly_close", story.home, story.unmapped, "2026-03-01", close_config("finance")
    )


@pytest.fixture(scope="module")
def published(story: Story, blocked: ExecuteInProcessResult) -> ExecuteInProcessResult:
    return execute("monthly_close", story.home, story.mapped, "2026-03-01", close_config("finance"))


@pytest.fixture(scope="module")
def reclosed(story: Story, published: ExecuteInProcessResult) -> ExecuteInProcessResult:
    return execute("monthly_close", story.home, story.mapped, "2026-03-01", close_config("eve"))


@dataclass(frozen=True)
class Late:
    landed: ExecuteInProcessResult
    built: ExecuteInProcessResult
    march_before: list[tuple]
    march_after: list[tuple]


@pytest.fixture(scope="module")
def late(story: Story, reclosed: ExecuteInProcessResult) -> Late:
    march = "select * from marts.fact_chargeback where period = '2026-03' order by 1"
    before = sql(story.home, march)
    # a March job reported only on April 2nd, dropped in the inbox after the close
    job = Job("4", "atlas", dt.datetime(2026, 3, 20), dt.datetime(2026, 3, 20, 10), 1, "node-a")
    drop_in_inbox(story.home, "slurm", "late.txt", job.line() + "\n", dt.datetime(2026, 4, 2, 9))
    landed = execute("land_inbox", story.home, story.mapped, "2026-04-02")
    built = execute("provisional_build", story.home, story.mapped)
    return Late(landed, built, before, sql(story.home, march))


@pytest.fixture(scope="module")
def april_closed(story: Story, late: Late) -> ExecuteInProcessResult:
    return execute("monthly_close", story.home, story.mapped, "2026-04-01", close_config("ops"))


def test_a_failing_reconciliation_check_stops_published_period(
    story: Story, blocked: ExecuteInProcessResult
) -> None:
    checks = checks_by_name(blocked)
    assert checks["unattributed_gpu_hours"] is False  # 50 of 450 GPU-hours have no owner
    assert checks["capacity_identity"] is True
    evaluation = next(
        e for e in blocked.get_asset_check_evaluations() if e.check_name == "unattributed_gpu_hours"
    )
    assert evaluation.metadata["observed"].value == pytest.approx(11.111111)
    assert evaluation.metadata["limit"].value == 2.0
    assert not blocked.success
    assert blocked.asset_materializations_for_node("published_period") == []
    # the build's provisional marts are served all the same (report shows them)
    assert [
        m.asset_key.to_user_string()
        for m in blocked.asset_materializations_for_node("warehouse")
        if m.asset_key.path[0] == "serving"
    ] == ["serving/marts"]
    assert "published_period" not in step_failures(blocked)  # skipped, never started
    assert sql(story.home, "select count(*) from ledger.closes") == [(0,)]
    assert sql(story.home, "select distinct status from marts.fact_chargeback") == [
        ("provisional",)
    ]


def test_passing_checks_publish_the_period(story: Story, published: ExecuteInProcessResult) -> None:
    assert published.success
    checks = checks_by_name(published)
    assert all(checks.values())
    # one blocking check per check_name the model reports for the period, none missed
    reported = sql(
        story.home,
        "select distinct check_name from marts.fact_reconciliation where period = '2026-03'",
    )
    assert {name for (name,) in reported} <= set(checks)
    by_key = {
        m.asset_key.to_user_string(): m
        for m in published.asset_materializations_for_node("published_period")
    }
    assert set(by_key) == {"published_period", "serving/marts"}
    close_id = by_key["published_period"].metadata["close_id"].value
    assert close_id.startswith("close-2026-03-v1-")
    # the served copy readers see was published after the close, with it
    assert by_key["serving/marts"].metadata["closes"].value == {"2026-03": close_id}
    close = sql(
        story.home,
        "select close_id, approver, close_version, line_count, total_amount, policy_hash, "
        "schema_version, rate_card_version, input_manifest_hash, lines_sha256 from ledger.closes",
    )
    assert close[0][:5] == (close_id, "finance", 1, 1, Decimal("900.00"))
    assert all(close[0])
    batches = sql(
        story.home, "select count(*) from ledger.close_batches where close_id = ?", [close_id]
    )
    assert batches == [(2,)]  # the inventory and the sacct batch
    assert sql(
        story.home,
        "select tenant_id, amount, status from marts.fact_chargeback where period = '2026-03'",
    ) == [("atlas", Decimal("900.00"), "closed")]


def test_a_re_close_is_refused(story: Story, reclosed: ExecuteInProcessResult) -> None:
    assert not reclosed.success
    failures = step_failures(reclosed)
    # refused before anything is built: the warehouse step says so
    assert "already closed" in failures["warehouse"]
    event = next(e for e in reclosed.all_events if e.is_step_failure)
    assert event.step_failure_data.user_failure_data.metadata[OUTCOME_KEY].value == ALREADY_CLOSED
    assert reclosed.asset_materializations_for_node("published_period") == []
    assert sql(story.home, "select count(*), min(approver) from ledger.closes") == [(1, "finance")]


def test_late_data_becomes_a_correction_in_the_next_open_period(story: Story, late: Late) -> None:
    assert late.landed.success and late.built.success
    assert checks_by_name(late.landed)["raw_batch_expectations"] is True
    corrections = sql(
        story.home,
        "select period, tenant_id, charge_component, quantity, amount, charge_class, "
        "description, status from marts.fact_chargeback where charge_class = 'Correction'",
    )
    close_id = current_close(story.home, "2026-03").close_id
    assert corrections == [
        (
            "2026-04",
            "atlas",
            "allocated_gpu_hours",
            Decimal("10.000000"),
            Decimal("20.00"),
            "Correction",
            f"correction of 2026-03 ({close_id}): evidence landed after the close",
            "provisional",
        )
    ]
    # the closed rows never change, and still hash to what the close recorded
    assert late.march_after == late.march_before
    recorded = sql(
        story.home, "select lines_sha256 from ledger.closes where close_id = ?", [close_id]
    )
    assert lines_hash(published_lines(story.home, close_id)) == recorded[0][0]
    evidence = json.loads((story.home / "ledger" / "2026-03" / f"{close_id}.json").read_text())
    assert evidence["lines_sha256"] == recorded[0][0]
    # the provisional recomputation of March did move (400 + 50 + 10 GPU-h)
    assert sql(
        story.home, "select sum(amount) from intermediate.int_charge_lines where period = '2026-03'"
    ) == [(Decimal("920.00"),)]


def test_closing_the_next_period_publishes_the_correction_once(
    story: Story, april_closed: ExecuteInProcessResult
) -> None:
    assert april_closed.success, step_failures(april_closed)
    march_close = current_close(story.home, "2026-03").close_id
    april = sql(
        story.home,
        "select charge_class, amount, corrects_period, corrects_close_id "
        "from ledger.chargeback_lines where period = '2026-04' order by charge_class nulls first",
    )
    assert april == [
        (None, Decimal("80.00"), None, None),
        ("Correction", Decimal("20.00"), "2026-03", march_close),
    ]
    rebuilt = execute("provisional_build", story.home, story.mapped)
    assert rebuilt.success
    # settled by April's close: no further correction anywhere
    assert sql(
        story.home,
        "select count(*) from marts.fact_chargeback where charge_class = 'Correction' "
        "and status = 'provisional'",
    ) == [(0,)]
    # and March is no longer late: no build restates it, and May, where nothing happened,
    # does not become a period to receive its (empty) corrections
    assert sql(story.home, "select count(*) from intermediate.int_late_evidence") == [(0,)]
    assert sql(story.home, "select period from marts.dim_period order by period") == [
        ("2026-03",),
        ("2026-04",),
    ]


def test_reopen_keeps_the_old_close_and_the_re_close_is_version_two(
    story: Story, april_closed: ExecuteInProcessResult
) -> None:
    home, mapped = story.home, story.mapped
    no_reason = run_cli(home, mapped, "reopen", "--period", "2026-04", "--reason", " ")
    assert no_reason.exit_code == 1 and "needs a --reason" in no_reason.stderr
    # March's late evidence is settled by April's close: reopening March would charge it twice
    march = run_cli(home, mapped, "reopen", "--period", "2026-03", "--reason", "recount")
    assert march.exit_code == 1 and "already published by close-2026-04-v1-" in march.stderr

    first = current_close(home, "2026-04").close_id
    reopened = run_cli(
        home,
        mapped,
        "reopen",
        "--period",
        "2026-04",
        "--reason",
        "late CMDB fix",
        "--approver",
        "ops",
    )
    assert reopened.exit_code == 0, reopened.stderr
    assert "reopened" in reopened.stdout and "version 2" in reopened.stdout
    assert current_close(home, "2026-04") is None
    assert sql(
        home, "select distinct status from marts.fact_chargeback where period = '2026-04'"
    ) == [("provisional",)]
    again = run_cli(home, mapped, "reopen", "--period", "2026-04", "--reason", "twice")
    assert again.exit_code == 1 and "not closed" in again.stderr

    reclosed = execute("monthly_close", home, mapped, "2026-04-01", close_config("ops"))
    assert reclosed.success, step_failures(reclosed)
    second = current_close(home, "2026-04")
    assert second.close_version == 2 and second.close_id != first
    # version 1 stays in the ledger, line for line; the mart serves version 2
    assert sql(
        home,
        "select close_id, count(*), sum(amount) from ledger.chargeback_lines "
        "where period = '2026-04' group by close_id order by close_id",
    ) == sorted([(first, 2, Decimal("100.00")), (second.close_id, 2, Decimal("100.00"))])
    assert sql(
        home, "select distinct close_id from marts.fact_chargeback where period = '2026-04'"
    ) == [(second.close_id,)]
    assert sql(home, "select reason, requested_by from ledger.reopens") == [
        ("late CMDB fix", "ops")
    ]
