"""A closed period is kept, not recomputed, by later builds (gpuledger.core.period_scope), and
the tables equal a full refresh.

A fleet of 32 GPUs (the benchmark's generator: sacct with steps, the pod watch, dcgm-exporter
query_range JSON at 60 s, vLLM counters and the gateway log) lands 2026-10-01..02 and closes
October; lands 2026-11-01 and builds, lands 2026-11-02 and closes November; then lands
2026-12-01 and builds. The sacct of 1 November reaches back into 31 October (a job ran across
midnight), so the build that has it computes October again (October is late until November's
close publishes its corrections); the files of 2 November reach no further back than 1
November, so the builds after that one keep October, late or not. The sacct of 1 December
reaches into November the same way. With December comes one more sacct file: two jobs that each
hold all 8 GPUs of one node from 30 November 22:00 to 1 December 02:00, so the node holds 16
GPUs' worth beside its own jobs (a capacity finding in both periods, int_device_conservation).
So the last build keeps October's rows (closed, nothing new touches it) and computes November
and December. A copy of the home with every model and state dropped (its landed batches and
published ledger kept) is then built whole: every mart and every table built by period must be
the same rows.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path
from typing import NamedTuple

import duckdb
import pytest
import yaml

from benchmarks.evidence import Files, write_days
from benchmarks.fleet import ACCOUNTS, GPUS_PER_NODE, Fleet, Run, make_fleet
from benchmarks.formats.inventory import write_inventory
from benchmarks.formats.kubernetes import CLUSTER, write_watch_start
from benchmarks.formats.slurm import HEADER, job_lines
from benchmarks.policy import write_policy
from gpuledger.core import incremental, period_scope
from gpuledger.core.home import PROJECT_DIR, home_lock
from gpuledger.core.ledger import reopen
from gpuledger.core.warehouse import WRITE_SETTINGS, connect
from orchestration.project import prepare_manifest
from tests.conftest import run_cli, sql
from tests.e2e.test_incremental import _differences

GPUS = 32
OCTOBER = [dt.datetime(2026, 10, 1), dt.datetime(2026, 10, 2)]
NOVEMBER = [dt.datetime(2026, 11, 1), dt.datetime(2026, 11, 2)]
DECEMBER = [dt.datetime(2026, 12, 1)]
PERIOD_TABLES = [f"{schema}.{name}" for schema, name in period_scope.PERIOD_MODELS]
# the two jobs over-placing one node across November's end (run ids the fleet never gives)
OVERPLACED = (dt.datetime(2026, 11, 30, 22), dt.datetime(2026, 12, 1, 2))
CONSERVATION = "intermediate.int_device_conservation"
# the text column the probe marks in each table built by period (segment_id where it has one;
# only the rows that have one count)
# (the data tests hold the other columns: fact_idle_capacity's capacity rows have no segment)
MARKED = {
    "intermediate.int_device_conservation": "finding",
    "intermediate.int_capacity_idle_timeline": "gpu_class",
    "intermediate.int_unused_guarantee": "tenant_id",
    "intermediate.int_pending_gpu_demand": "pending_request_id",
    # (its tenant and GPU-hours are compared with the segments' by a singular test)
    "marts.fact_failed_work": "failure_class",
    # (a column no model reads)
    "intermediate.int_workload_outcomes": "end_state",
}
# the tenant sweep is marked in a level that only int_allocation_segments reads, and only of
# the periods a build computes; the class sweep in its GPUs in service (read whole by
# int_class_capacity_excess: a marked interval exceeds nothing)
LEVEL_MARKED = {
    "intermediate.int_tenant_class_timeline": "borrowed_gpu_equivalents",
    "intermediate.int_class_timeline": "in_service_gpus",
}
LEVEL_MARK = 1_000_000


def _ok(result: object) -> None:
    assert result.exit_code == 0, result.stdout + result.stderr  # type: ignore[attr-defined]


def _land(home: Path, policy: Path, files: Files, read_at: dt.datetime) -> None:
    """Each source's files, as the benchmark lands them (the watch dated by its events)."""
    for source in ("slurm", "kubernetes", "prometheus", "requests"):
        if source not in files.paths:
            continue
        argv = ["ingest", source, "--file", *map(str, files.paths[source])]
        argv += ["--cluster", CLUSTER] if source == "kubernetes" else []
        argv += [] if source == "kubernetes" else ["--extracted-at", read_at.isoformat()]
        _ok(run_cli(home, policy, *argv))


def _overplaced(folder: Path, fleet: Fleet) -> Path:
    """A sacct export of two jobs that each hold every GPU of the first Slurm node over
    OVERPLACED (with their steps)."""
    node = fleet.slurm_nodes[0]
    start, end = OVERPLACED
    lines = [HEADER]
    for run_id in (1, 2):
        run = Run(run_id, node, 0, GPUS_PER_NODE, start, end, ACCOUNTS[0], "COMPLETED")
        lines += job_lines(run)
    path = folder / "sacct-overplaced.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def _marked(home: Path) -> dict[str, dict[str, int]]:
    """Per table built by period: its rows of each period that still carry the mark."""
    return {
        table: dict(
            sql(
                home,
                f"select period, count(*) filter (where {_probe(table).marked}) "
                f"from {table} group by period",
            )
        )
        for table in PERIOD_TABLES
    }


def _column(table: str) -> str:
    return MARKED.get(table, "segment_id")


class Probe(NamedTuple):
    """How the probe marks a row of a table, finds the mark again, and what a row count counts."""

    mark: str
    marked: str
    counted: str


def _probe(table: str) -> Probe:
    if table in LEVEL_MARKED:
        level = LEVEL_MARKED[table]
        return Probe(f"{level} = {level} + {LEVEL_MARK}", f"{level} >= {LEVEL_MARK}", "*")
    column = _column(table)
    return Probe(f"{column} = {column} || '#kept'", f"{column} like '%#kept'", column)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("period-scope")
    fleet = make_fleet(GPUS, 8, seed=5)
    assert fleet.kubernetes_nodes
    policy = write_policy(root / "policy", GPUS, ["slurm", "prometheus", "requests"])
    home = root / "history"
    inventory = root / "inventory.csv"
    write_inventory(inventory, fleet)
    _ok(run_cli(home, policy, "ingest", "inventory", "--file", str(inventory),
                "--extracted-at", OCTOBER[0].isoformat()))  # fmt: skip
    listing = root / "watch-start.json"
    write_watch_start(listing, fleet)
    _ok(run_cli(home, policy, "ingest", "kubernetes", "--file", str(listing),
                "--cluster", CLUSTER, "--extracted-at", OCTOBER[0].isoformat()))  # fmt: skip

    _land(home, policy, write_days(root / "october", fleet, OCTOBER), NOVEMBER[0])
    _ok(run_cli(home, policy, "close", "--period", "2026-10", "--approver", "t"))
    after_october = period_scope.frozen(home, incremental.manifested_batches(home))

    _land(home, policy, write_days(root / "november-1", fleet, NOVEMBER[:1]), NOVEMBER[1])
    late_for_october = period_scope.frozen(home, incremental.manifested_batches(home))
    _ok(run_cli(home, policy, "build"))
    late_built = period_scope.frozen(home, incremental.manifested_batches(home))
    _land(home, policy, write_days(root / "november-2", fleet, NOVEMBER[1:]), DECEMBER[0])
    late_untouched = period_scope.frozen(home, incremental.manifested_batches(home))
    late_evidence = sql(
        home, "select distinct period, target_period from intermediate.int_late_evidence"
    )
    _ok(run_cli(home, policy, "close", "--period", "2026-11", "--approver", "t"))
    after_november = period_scope.frozen(home, incremental.manifested_batches(home))

    _land(home, policy, write_days(root / "december", fleet, DECEMBER), DECEMBER[0].replace(day=2))
    _ok(run_cli(home, policy, "ingest", "slurm", "--file", str(_overplaced(root, fleet)),
                "--extracted-at", DECEMBER[0].replace(day=2).isoformat()))  # fmt: skip
    frozen = period_scope.frozen(home, incremental.manifested_batches(home))
    # a copy whose rows of October and November are marked: what the build keeps keeps it
    probe = root / "probe"
    shutil.copytree(home, probe)
    with duckdb.connect(str(probe / "warehouse.duckdb")) as con:
        for table in PERIOD_TABLES:
            mark = _probe(table).mark
            con.execute(f"update {table} set {mark} where period in ('2026-10', '2026-11')")
    _ok(run_cli(probe, policy, "build"))
    _ok(run_cli(home, policy, "build"))

    # the same batches and published ledger, every model and state dropped: built whole
    full = root / "full"
    shutil.copytree(home, full)
    with duckdb.connect(str(full / "warehouse.duckdb")) as con:
        for schema in ("staging", "intermediate", "marts", "reference"):
            con.execute(f"drop schema {schema} cascade")
        for table in (incremental.STATE_TABLE, period_scope.STATE_TABLE):
            con.execute(f"drop table main.{table}")
    _ok(run_cli(full, policy, "build"))
    return {
        "home": home,
        "policy": policy,
        "full": full,
        "after_october": after_october,
        "late_for_october": late_for_october,
        "late_built": late_built,
        "late_untouched": late_untouched,
        "late_evidence": late_evidence,
        "after_november": after_november,
        "frozen": frozen,
        "marked": _marked(probe),
    }


def test_a_closed_period_is_computed_only_by_the_build_its_late_evidence_lands_for(
    history: dict,
) -> None:
    print(
        f"\nafter October's close: {history['after_october']}; with 1 November landed: "
        f"{history['late_for_october']}; built: {history['late_built']}; with 2 November "
        f"landed: {history['late_untouched']} (late evidence {history['late_evidence']}); "
        f"after November's close: {history['after_november']}; "
        f"with December landed: {history['frozen']}"
    )
    # October's close froze it; 1 November's sacct reaches into 31 October: late, computed
    assert history["after_october"] == ("2026-10",)
    assert history["late_for_october"] == ()
    # the build that had it computed October; 2 November's files do not reach October, so
    # the next build keeps it while its corrections still wait for November's close
    assert history["late_built"] == ("2026-10",)
    assert history["late_untouched"] == ("2026-10",)
    assert history["late_evidence"] == [("2026-10", "2026-11")]
    # November's close settled October's late evidence (its Corrections: none for this
    # fleet) and closed November
    assert history["after_november"] == ("2026-10", "2026-11")
    # December's sacct reaches into November: November is computed again, October kept
    assert history["frozen"] == ("2026-10",)


def test_a_frozen_period_keeps_its_rows_and_the_others_are_recomputed(history: dict) -> None:
    """In the probe's copy every row of October and November was marked before the build:
    October's marked rows are all still there, November's were all computed again."""
    with duckdb.connect(str(history["home"] / "warehouse.duckdb"), read_only=True) as con:
        counts = {
            table: dict(
                con.execute(
                    f"select period, count({_probe(table).counted}) from {table} group by 1"
                ).fetchall()
            )
            for table in PERIOD_TABLES
        }
    print()
    for table, marked in history["marked"].items():
        print(f"{table:<45} rows {counts[table]}  marked after the build {marked}")
        if table == CONSERVATION:  # findings only where the planted jobs over-place
            assert sorted(counts[table]) == ["2026-11", "2026-12"], counts[table]
            assert marked.get("2026-11", 0) == 0, table
            continue
        assert counts[table]["2026-10"] and counts[table]["2026-11"], table
        assert marked["2026-10"] == counts[table]["2026-10"], table
        assert marked["2026-11"] == 0 and marked["2026-12"] == 0, table


def test_a_history_of_builds_equals_a_full_refresh(history: dict) -> None:
    found = _differences(
        history["home"] / "warehouse.duckdb", history["full"] / "warehouse.duckdb", PERIOD_TABLES
    )
    print()
    for table, (rows, only_left, only_right) in found.items():
        print(f"{table:<55} {rows:>8,} rows  only history {only_left}  only full {only_right}")
    assert {t: d for t, d in found.items() if d[1] or d[2]} == {}
    assert {t for t in found} >= {"marts.fact_gpu_allocation", "marts.fact_chargeback"}
    assert found[CONSERVATION][0] > 0  # the over-placed node's findings, equal in both
    statuses = sql(history["full"], "select distinct period, status from marts.fact_chargeback")
    assert sorted(statuses) == [
        ("2026-10", "closed"),
        ("2026-11", "closed"),
        ("2026-12", "provisional"),
    ]
    periods = sql(history["home"], "select distinct period from marts.fact_gpu_allocation")
    assert sorted(periods) == [("2026-10",), ("2026-11",), ("2026-12",)]


def _compiled_test(home: Path, name: str) -> str:
    found = sorted((home / "dbt" / "target" / "compiled").rglob(f"{name}*.sql"))
    assert len(found) == 1, found
    return found[0].read_text()


def test_the_data_tests_of_a_model_built_by_period_check_the_computed_periods(
    history: dict,
) -> None:
    """The last build kept October: the data tests of the models built by period read the
    rows of the periods it computed (macros/get_where_subquery.sql), the others every row.
    The full refresh kept nothing, so its tests read every period."""
    kept = "period not in ('2026-10')"
    for table in ("fact_idle_capacity_idle_capacity_id", "int_allocation_segments_segment_id"):
        assert kept in _compiled_test(history["home"], f"unique_{table}"), table
        assert "period not in" not in _compiled_test(history["full"], f"unique_{table}"), table
    # a relationships test filters the model it tests, never the table it refers to
    # (int_allocation_activity's segment_id to int_allocation_segments: dbt hashes the name)
    relationship = _compiled_test(history["home"], "relationships_int_allocation_a_")
    assert relationship.count(kept) == 1, relationship
    for other in ("unique_int_allocations_allocation_id", "not_null_stg_slurm__jobs_workload_id"):
        assert "period not in" not in _compiled_test(history["home"], other), other


def test_replaced_periods_leave_their_row_groups_unmerged(history: dict) -> None:
    """The last build deleted November's and December's rows from row groups that hold
    October's, and appended theirs: with WRITE_SETTINGS (dbt's profile sets them as the
    pipeline's writers do) no checkpoint merged those row groups, which would have written
    every appended row again; the deleted rows still take their space, the full refresh's
    tables have none. And every writer sets them."""
    settings = yaml.safe_load((PROJECT_DIR / "profiles.yml").read_text())["gpuledger"]
    assert settings["outputs"]["duckdb"]["settings"].items() >= WRITE_SETTINGS.items()
    with connect(history["home"], read_only=False) as con:
        for name, value in WRITE_SETTINGS.items():
            assert con.execute(f"select current_setting('{name}')").fetchone()[0] == value

    def kept_deleted(home: Path) -> dict[str, int]:
        found = {}
        with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
            for table in PERIOD_TABLES:
                stored = con.execute(
                    f"select coalesce(sum(count), 0) from pragma_storage_info('{table}') "
                    "where column_id = 0 and segment_type <> 'VALIDITY'"
                ).fetchone()[0]
                found[table] = stored - con.execute(f"select count(*) from {table}").fetchone()[0]
        return found

    history_deleted, full_deleted = kept_deleted(history["home"]), kept_deleted(history["full"])
    print(f"\ndeleted rows kept in storage: history {history_deleted}; full {full_deleted}")
    assert set(full_deleted.values()) == {0}
    assert history_deleted["marts.fact_gpu_allocation"] > 0
    assert history_deleted["marts.fact_idle_capacity"] > 0


def test_a_change_of_policy_computes_every_period(history: dict, tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(history["home"], home)
    batches = incremental.manifested_batches(home)
    # both closed, and the last build had every batch (December's reached November)
    assert period_scope.frozen(home, batches) == ("2026-10", "2026-11")
    hash_file = home / "policy" / "POLICY_HASH"
    hash_file.write_text("another policy\n")
    assert period_scope.frozen(home, batches) == ()


def test_a_period_holding_corrections_of_a_computed_period_is_computed() -> None:
    """A Correction's evidence is the period it corrects as recomputed now: the period that
    published it is kept only with that period, and so on down the chain."""
    corrections = [("2026-11", "2026-10"), ("2026-12", "2026-11")]
    keep = period_scope.without_corrections_of_computed
    assert keep({"2026-10", "2026-11", "2026-12"}, corrections) == {"2026-10", "2026-11", "2026-12"}
    assert keep({"2026-11", "2026-12"}, corrections) == set()
    assert keep({"2026-10", "2026-12"}, corrections) == {"2026-10"}
    assert keep({"2026-09", "2026-12"}, []) == {"2026-09", "2026-12"}


def test_late_evidence_for_a_corrected_period_computes_the_period_of_its_corrections(
    history: dict, tmp_path: Path
) -> None:
    """A period that published Corrections of October (November here: its close published
    none for this fleet, so one of its lines is made one in the copy's ledger) is kept while
    October is. A batch whose evidence lies in October alone touches October, and November
    is computed with it: what its Corrections' evidence (marts.fact_charge_line_evidence)
    says is October as recomputed now."""
    home = tmp_path / "home"
    shutil.copytree(history["home"], home)
    with duckdb.connect(str(home / "warehouse.duckdb")) as con:
        con.execute(
            "update ledger.chargeback_lines set corrects_period = '2026-10' where charge_line_id"
            " = (select min(charge_line_id) from ledger.chargeback_lines where period = '2026-11')"
        )
    assert period_scope.frozen(home, incremental.manifested_batches(home)) == (
        "2026-10",
        "2026-11",
    )
    node = make_fleet(GPUS, 8, seed=5).slurm_nodes[0]
    run = Run(3, node, 0, 1, dt.datetime(2026, 10, 15, 8), dt.datetime(2026, 10, 15, 9),
              ACCOUNTS[0], "COMPLETED")  # fmt: skip
    late = tmp_path / "sacct-october.txt"
    late.write_text("\n".join([HEADER, *job_lines(run)]) + "\n")
    # read on 20 October (an older export landed late): its evidence span is October's alone
    _ok(run_cli(home, history["policy"], "ingest", "slurm", "--file", str(late),
                "--extracted-at", dt.datetime(2026, 10, 20).isoformat()))  # fmt: skip
    batches = incremental.manifested_batches(home)
    recorded = period_scope._recorded(home, period_scope.fingerprint(home))
    assert recorded is not None
    new = [batch for batch in batches if batch not in recorded.batches]
    assert period_scope._touched(home, new) == {"2026-10"}
    assert period_scope.frozen(home, batches) == ()


def test_a_ledger_write_that_no_refresh_followed_computes_every_period(
    history: dict, tmp_path: Path
) -> None:
    """A reopen refreshes the marts that read the ledger and records the state again: the
    reopened November is computed, October kept. A ledger write that stopped before its
    refresh (a reopen recorded, the process gone) leaves nothing kept: the ledger's marts
    kept rows of the ledger before it."""
    home = tmp_path / "home"
    shutil.copytree(history["home"], home)
    batches = incremental.manifested_batches(home)
    _ok(run_cli(home, history["policy"], "reopen", "--period", "2026-11", "--reason", "probe"))
    assert period_scope.frozen(home, batches) == ("2026-10",)
    status = sql(home, "select distinct line_status from marts.fact_charge_line_evidence "
                 "where period = '2026-11'")  # fmt: skip
    assert status == [("provisional",)]
    with home_lock(home):  # what a reopen that stopped before its refresh leaves
        reopen(home, "2026-10", "probe", "t")
    assert period_scope.frozen(home, batches) == ()


def test_every_model_built_by_period_is_registered() -> None:
    """gpuledger.core.period_scope knows every model built by period (its frozen periods are
    chosen and recorded there): on DuckDB they are materialized `by_period`."""
    manifest = json.loads(prepare_manifest().read_text())
    found = {
        (node["schema"], node["name"])
        for node in manifest["nodes"].values()
        if node["resource_type"] == "model" and node["config"]["materialized"] == "by_period"
    }
    assert found == set(period_scope.PERIOD_MODELS)
