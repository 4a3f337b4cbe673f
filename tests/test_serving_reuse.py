"""What a serve takes from the served copy before it (gpuledger.core.serving.plan_reuse):
read from the dbt commands the warehouse recorded since that copy (macros/record_dbt_run.sql);
the end-to-end check that every copy equals the warehouse is tests/e2e/test_serving.py."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from gpuledger.core.home import served_path
from gpuledger.core.serving import INVOCATIONS_TABLE, _spent, plan_reuse

PERIOD = "period"


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(
        f"create table main.{INVOCATIONS_TABLE} (seq bigint, invocation_id varchar, "
        "started_at timestamp, command varchar, full_refresh boolean, frozen_periods varchar, "
        "selected_marts varchar)"
    )
    return con


def record(con: duckdb.DuckDBPyConnection, marts: dict, frozen: str = "", full=False) -> None:
    (seq,) = con.execute(f"select coalesce(max(seq), 0) + 1 from {INVOCATIONS_TABLE}").fetchone()
    con.execute(
        f"insert into {INVOCATIONS_TABLE} values (?, ?, now(), 'build', ?, ?, ?)",
        [seq, f"inv-{seq}", full, frozen, json.dumps(marts)],
    )


def served(seq: int, *marts: str) -> dict:
    """A manifest whose copy saw the commands through `seq` and holds `marts`."""
    return {
        "served_through": {"seq": seq, "invocation_id": f"inv-{seq}"},
        "row_counts": dict.fromkeys(marts, 1),
    }


def test_marts_no_command_since_selected_are_kept(con: duckdb.DuckDBPyConnection) -> None:
    record(con, {"fact_chargeback": None, "fact_idle_capacity": PERIOD, "dim_gpu": None})
    record(con, {})  # the telemetry pieces: no mart
    record(con, {"fact_chargeback": None})
    reuse = plan_reuse(con, served(1, "fact_chargeback", "fact_idle_capacity", "dim_gpu"))
    assert reuse is not None
    assert reuse.untouched == {"fact_idle_capacity", "dim_gpu"}
    assert reuse.periods == {}


def test_a_mart_built_by_period_keeps_what_every_command_since_kept(
    con: duckdb.DuckDBPyConnection,
) -> None:
    record(con, {})
    record(con, {"fact_idle_capacity": PERIOD, "fact_gpu_allocation": PERIOD}, "2026-09,2026-10")
    record(con, {"fact_idle_capacity": PERIOD}, "2026-10,2026-11")
    reuse = plan_reuse(con, served(1, "fact_idle_capacity", "fact_gpu_allocation"))
    assert reuse is not None
    assert reuse.periods == {
        "fact_idle_capacity": (PERIOD, ("2026-10",)),
        "fact_gpu_allocation": (PERIOD, ("2026-09", "2026-10")),
    }
    assert reuse.untouched == set()


@pytest.mark.parametrize(
    "later",
    [
        ({"fact_idle_capacity": PERIOD}, "", False),  # a command that froze nothing
        ({"fact_idle_capacity": PERIOD}, "2026-10", True),  # a full refresh
        ({"fact_idle_capacity": None}, "2026-10", False),  # no longer built by period
        ({"fact_idle_capacity": PERIOD}, "2026-11", False),  # no period kept by both
    ],
)
def test_a_command_that_may_have_rebuilt_every_period_keeps_none(
    con: duckdb.DuckDBPyConnection, later: tuple[dict, str, bool]
) -> None:
    record(con, {})
    record(con, {"fact_idle_capacity": PERIOD}, "2026-10")
    marts, frozen, full = later
    record(con, marts, frozen, full)
    reuse = plan_reuse(con, served(1, "fact_idle_capacity"))
    assert reuse is not None and reuse.periods == {} and reuse.untouched == set()


def test_a_mart_the_copy_before_lacks_is_never_kept(con: duckdb.DuckDBPyConnection) -> None:
    record(con, {})
    record(con, {"fact_idle_capacity": PERIOD}, "2026-10")
    reuse = plan_reuse(con, served(1, "dim_gpu"))
    assert reuse is not None and reuse.periods == {} and reuse.untouched == {"dim_gpu"}


def test_a_copy_the_record_cannot_place_is_made_whole(con: duckdb.DuckDBPyConnection) -> None:
    record(con, {})
    record(con, {"dim_gpu": None})
    assert plan_reuse(con, None) is None
    assert plan_reuse(con, {"row_counts": {"dim_gpu": 1}}) is None  # served before the record
    assert plan_reuse(con, served(3, "dim_gpu")) is None  # a seq the record does not have
    other = served(1, "dim_gpu")
    other["served_through"]["invocation_id"] = "inv-of-another-warehouse"
    assert plan_reuse(con, other) is None
    con.execute(f"drop table {INVOCATIONS_TABLE}")
    assert plan_reuse(con, served(1, "dim_gpu")) is None


def test_a_served_file_mostly_freed_blocks_is_spent(tmp_path: Path) -> None:
    path = served_path(tmp_path)
    path.parent.mkdir(parents=True)
    with duckdb.connect(str(path)) as con:
        con.execute("create table big as select range as n, random() as x from range(3000000)")
        con.execute("create table small as select 1 as n")
    assert not _spent(tmp_path)
    with duckdb.connect(str(path)) as con:
        con.execute("drop table big")
        con.execute("checkpoint")
    assert _spent(tmp_path)
