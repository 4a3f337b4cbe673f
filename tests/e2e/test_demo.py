"""`gpuledger demo`: a month of a mixed fleet generated, ingested, closed and shown."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from tests.conftest import run_cli, sql


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    home = tmp_path_factory.mktemp("demo") / "home"
    result = run_cli(home, None, "demo")
    assert result.exit_code == 0, result.stdout + result.stderr
    return home, result.stdout


def test_demo_closes_the_month_and_prints_the_showback(demo_home: tuple[Path, str]) -> None:
    home, stdout = demo_home
    assert "period 2026-10 closed and published as close-2026-10-v1-" in stdout
    assert "GPU Ledger showback 2026-10 (closed, USD)" in stdout
    for tenant in (
        "atlas",
        "boreal",
        "cirrus",
        "delta",
        "ember",
        "__unattributed__",
        "__platform__",
    ):
        assert f"\n{tenant} " in stdout
    assert sql(home, "select count(*) from ledger.closes") == [(1,)]


def test_demo_pool_and_overhead_reconcile_to_the_cent(demo_home: tuple[Path, str]) -> None:
    home, _ = demo_home
    # demo policy: pools 150,000 (h100) + 40,000 (a100), overhead 6,000, credit 250
    assert sql(home, "select sum(amount) from marts.fact_chargeback where period = '2026-10'") == [
        (Decimal("195750.00"),)
    ]


def test_demo_ownership_change_splits_the_shared_account(demo_home: tuple[Path, str]) -> None:
    home, _ = demo_home
    owners = sql(
        home,
        "select tenant_id, min(segment_start_at), max(segment_end_at) "
        "from marts.fact_gpu_allocation where scope_key = 'nlp-shared' and period = '2026-10' "
        "group by all order by 2",
    )
    assert [o[0] for o in owners] == ["atlas", "cirrus"]
    assert str(owners[0][2]) <= "2026-10-15 12:00:00" <= str(owners[1][1])
    spanning = sql(
        home,
        "select workload_id from marts.fact_gpu_allocation where scope_key = 'nlp-shared' "
        "group by all having count(distinct tenant_id) = 2",
    )
    assert spanning, "a job running across the ownership change is split between the owners"


def test_demo_jobs_crossing_month_ends_are_charged_to_each_month(
    demo_home: tuple[Path, str],
) -> None:
    home, _ = demo_home
    crossing = sql(
        home,
        "select workload_id, list(distinct period order by period) as periods "
        "from marts.fact_gpu_allocation group by all having count(distinct period) > 1",
    )
    periods = {tuple(p) for _, p in crossing}
    assert ("2026-09", "2026-10") in periods and ("2026-10", "2026-11") in periods


def test_report_formats(demo_home: tuple[Path, str]) -> None:
    home, _ = demo_home
    csv_out = run_cli(home, None, "report", "--period", "2026-10", "--format", "csv")
    assert csv_out.stdout.splitlines()[0].startswith(
        "tenant_id,reserved_gpu_hours,allocated_gpu_hours"
    )
    lines = run_cli(home, None, "report", "--period", "2026-10", "--tenant", "boreal")
    assert "Charge lines of boreal" in lines.stdout
    assert "guaranteed_capacity" in lines.stdout and "burst_usage" in lines.stdout
    html = run_cli(home, None, "report", "--period", "2026-10", "--format", "html")
    assert html.stdout.startswith("<!doctype html>") and "<td>boreal</td>" in html.stdout
    missing = run_cli(home, None, "report", "--period", "2031-01")
    assert missing.exit_code == 1 and "no showback for period 2031-01" in missing.stderr


def test_demo_never_wipes_a_home_it_did_not_create(tmp_path: Path) -> None:
    home = tmp_path / "precious"
    home.mkdir()
    (home / "warehouse.duckdb").write_text("not a demo")
    result = run_cli(home, None, "demo")
    assert result.exit_code == 2
    assert "not a demo's" in result.stderr
    assert (home / "warehouse.duckdb").read_text() == "not a demo"
