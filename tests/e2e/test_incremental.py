"""An incremental history equals a full refresh (gpuledger.core.incremental).

A fleet of 8 GPUs (the benchmark's generator: sacct with steps and dcgm-exporter
query_range JSON at 60 s) lands 2026-10-01..03 and is built; then 2026-10-04 lands with a
late re-export of 2026-10-03 (extracted later, every GR_ENGINE_ACTIVE value halved), and the
next build rebuilds only 2026-10-02..05 (the new days, a day out either side), leaving
2026-10-01 as the first build wrote it. A copy of the home without its warehouse is then
built whole (a full refresh), a few days per dbt run as a fleet month's first build
is (incremental.chunks, with a small chunk size). Every mart and both incremental tables
must be the same rows in both warehouses (EXCEPT ALL, both ways), and the late version of
2026-10-03 must be the one the tables hold.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from benchmarks.evidence import write_days
from benchmarks.fleet import make_fleet
from benchmarks.formats.inventory import write_inventory
from benchmarks.policy import write_policy
from gpuledger.core import incremental
from gpuledger.core.warehouse import BuildError, run_dbt
from orchestration.project import prepare_manifest
from tests.conftest import run_cli

DAYS = [dt.datetime(2026, 10, day) for day in (1, 2, 3, 4)]  # UTC, as the benchmark writes them
# rows of telemetry per rebuild piece of the full refresh: about half of one of the fleet's
# days, so the full refresh is rebuilt in pieces of hours (incremental.chunks), and the
# hourly roll-up (CHUNK_SCALE) in runs of days
CHUNK_ROWS = 20_000
INCREMENTAL_TABLES = [f"{schema}.{name}" for schema, name, _ in incremental.INCREMENTAL_MODELS]


def _ingest(home: Path, policy: Path, source: str, paths: list[Path], at: dt.datetime) -> None:
    files = [str(p) for p in paths]
    argv = ["ingest", source, "--file", *files, "--extracted-at", at.isoformat()]
    result = run_cli(home, policy, *argv)
    assert result.exit_code == 0, result.stdout + result.stderr


def _late_reexport(day_file: Path, folder: Path) -> Path:
    """The day's GR_ENGINE_ACTIVE response again, every value halved."""
    document = json.loads(day_file.read_text())
    for series in document["data"]["result"]:
        series["values"] = [[t, repr(float(v) / 2)] for t, v in series["values"]]
    late = folder / f"late-{day_file.name}"
    late.write_text(json.dumps(document))
    return late


def _tables(con: duckdb.DuckDBPyConnection, catalog: str) -> list[str]:
    rows = con.execute(
        "select table_schema || '.' || table_name from information_schema.tables "
        "where table_catalog = ? and table_schema = 'marts' and table_type = 'BASE TABLE'",
        [catalog],
    ).fetchall()
    return sorted(r[0] for r in rows) + INCREMENTAL_TABLES


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> str:
    """The table's columns to compare: a mart's exactly; in the incremental tables a double
    to 1e-6 (a sum of doubles over DuckDB's threads may differ in its last bit between any
    two builds, incremental or not; the marts publish rounded values and must be equal)."""
    if table.startswith("marts."):
        return "*"
    schema, name = table.split(".")
    rows = con.execute(
        "select column_name, data_type from information_schema.columns "
        "where table_catalog = 'l' and table_schema = ? and table_name = ? "
        "order by ordinal_position",
        [schema, name],
    ).fetchall()
    return ", ".join(f"round({c}, 6)" if t == "DOUBLE" else c for c, t in rows)


def _differences(
    left: Path, right: Path, more: list[str] | None = None
) -> dict[str, tuple[int, int, int]]:
    """Per table (every mart, the incremental tables and `more`): its rows, and the rows only
    in left and only in right."""
    con = duckdb.connect()
    con.execute(f"attach '{left}' as l (read_only)")
    con.execute(f"attach '{right}' as r (read_only)")
    found = {}
    for table in _tables(con, "l") + [t for t in more or [] if t not in _tables(con, "l")]:
        rows = con.execute(f"select count(*) from l.{table}").fetchone()[0]
        columns = _columns(con, table)
        left_rows, right_rows = (
            f"select {columns} from l.{table}",
            f"select {columns} from r.{table}",
        )
        only_left = con.execute(
            f"select count(*) from ({left_rows} except all {right_rows})"
        ).fetchone()[0]
        only_right = con.execute(
            f"select count(*) from ({right_rows} except all {left_rows})"
        ).fetchone()[0]
        found[table] = (rows, only_left, only_right)
    return found


@contextlib.contextmanager
def _in_pieces() -> Iterator[None]:
    """Builds inside rebuild their telemetry in pieces of CHUNK_ROWS rows."""
    os.environ[incremental.CHUNK_VARIABLE] = str(CHUNK_ROWS)
    try:
        yield
    finally:
        del os.environ[incremental.CHUNK_VARIABLE]


@pytest.fixture(scope="module")
def histories(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("incremental")
    fleet = make_fleet(8, 4, seed=3)
    policy = write_policy(root / "policy", 8, ["slurm", "prometheus"])
    home = root / "incremental"
    inventory = root / "inventory.csv"
    write_inventory(inventory, fleet)
    _ingest(home, policy, "inventory", [inventory], DAYS[0])
    first = write_days(root / "days-1-3", fleet, DAYS[:3])
    for source in ("slurm", "prometheus"):
        _ingest(home, policy, source, first.paths[source], DAYS[3])
    built = run_cli(home, policy, "build")
    assert built.exit_code == 0, built.stdout + built.stderr
    after_first = incremental.window(home)

    fourth = write_days(root / "day-4", fleet, DAYS[3:])
    third_activity = next(
        p for p in first.paths["prometheus"] if "2026-10-03" in p.name and "GR_ENGINE" in p.name
    )
    late = _late_reexport(third_activity, root)
    _ingest(home, policy, "slurm", fourth.paths["slurm"], DAYS[3] + dt.timedelta(days=1))
    _ingest(home, policy, "prometheus", fourth.paths["prometheus"], DAYS[3] + dt.timedelta(days=1))
    _ingest(home, policy, "prometheus", [late], DAYS[3] + dt.timedelta(days=2))
    second_window = incremental.window(home)
    # in pieces, as a large fleet's daily run is (rebuilt alone before the build): the
    # roll-up's piece then starts and ends within a day (Window.hours)
    with _in_pieces():
        second_pieces = incremental.plan(second_window, incremental.day_rows(home, second_window))
        built = run_cli(home, policy, "build")
    assert built.exit_code == 0, built.stdout + built.stderr
    # what the build ran for staging after its pieces (dbt's last statement of the model)
    ran = home / "dbt" / "target" / "run" / "gpuledger" / "models" / "staging" / "prometheus"
    staging_after_pieces = (ran / "stg_prometheus__gpu_activity.sql").read_text()

    full = root / "full"
    shutil.copytree(home, full)
    for path in full.glob("warehouse.duckdb*"):  # a new warehouse over the same batches
        path.unlink()
    full_window = incremental.window(full)
    pieces = incremental.chunks(full, full_window, limit=CHUNK_ROWS)
    with _in_pieces():
        built = run_cli(full, policy, "build")
    assert built.exit_code == 0, built.stdout + built.stderr
    return {
        "home": home,
        "full": full,
        "after_first": after_first,
        "second": second_window,
        "full_window": full_window,
        "pieces": pieces,
        "second_pieces": second_pieces,
        "staging_after_pieces": staging_after_pieces,
    }


def test_a_daily_build_rebuilds_only_the_days_its_batches_touch(histories: dict) -> None:
    after_first, second = histories["after_first"], histories["second"]
    full = histories["full_window"]
    print(f"\nafter the first build: {after_first}\nsecond build: {second}\nfull: {full}")
    assert (after_first.batches, after_first.full_refresh) == ((), False)
    assert not second.full_refresh
    assert (second.start, second.end) == (dt.date(2026, 10, 2), dt.date(2026, 10, 6))
    assert len(second.batches) >= 3  # day 4's sacct and DCGM, the late re-export
    # the roll-up's days are 2 to 5; its pieces cover the hours its new samples reach: from
    # an hour before the re-export of the 3rd to two hours after the 4th's last sample (23:59)
    rolled = histories["second_pieces"]["int_device_activity_hourly"]
    print("the roll-up's pieces in the second build:", ", ".join(map(str, rolled)))
    assert [p.start for p in rolled[1:]] == [p.end for p in rolled[:-1]]
    assert (rolled[0].start, rolled[-1].end) == (
        dt.datetime(2026, 10, 2, 23),
        dt.datetime(2026, 10, 5, 2),
    )
    # the build after the pieces names no day: staging's query did not run there
    # (macros/rebuild_window.sql, rebuilds_nothing), its table stays as the pieces left it
    assert "rows_replaced" in histories["staging_after_pieces"]
    assert "prometheus_points" not in histories["staging_after_pieces"]
    assert full.full_refresh and full.start == dt.date(2026, 9, 30)
    pieces = histories["pieces"]
    print("full refresh in pieces:", ", ".join(map(str, pieces)))
    assert len(pieces) >= 3
    assert any(piece.start.hour for piece in pieces)  # a day in pieces of hours
    assert [p.start for p in pieces[1:]] == [p.end for p in pieces[:-1]]
    midnight = dt.datetime.combine
    assert (pieces[0].start, pieces[-1].end) == (
        midnight(full.start, dt.time()),
        midnight(full.end, dt.time()),
    )


def test_incremental_history_equals_a_full_refresh(histories: dict) -> None:
    found = _differences(
        histories["home"] / "warehouse.duckdb", histories["full"] / "warehouse.duckdb"
    )
    print()
    for table, (rows, only_left, only_right) in found.items():
        print(f"{table:<55} {rows:>8,} rows  only incremental {only_left}  only full {only_right}")
    assert {t: d for t, d in found.items() if d[1] or d[2]} == {}
    assert found["staging.stg_prometheus__gpu_activity"][0] == 4 * 8 * 1440
    assert sum(rows for rows, _, _ in found.values()) > 0


def test_the_late_version_of_a_day_is_the_one_held(histories: dict) -> None:
    with duckdb.connect(str(histories["home"] / "warehouse.duckdb"), read_only=True) as con:
        (late_max,) = con.execute(
            "select max(active_ratio) from staging.stg_prometheus__gpu_activity "
            "where sample_day = date '2026-10-03'"
        ).fetchone()
        (other_max,) = con.execute(
            "select max(active_ratio) from staging.stg_prometheus__gpu_activity "
            "where sample_day = date '2026-10-02'"
        ).fetchone()
    assert late_max is not None and other_max is not None
    assert late_max <= other_max / 2 + 1e-9


def test_every_incremental_model_of_the_project_is_registered() -> None:
    """gpuledger.core.incremental knows every incremental model (its days are chosen and
    recorded there): a model made incremental without it would never be rebuilt by day.
    On DuckDB they are materialized `by_day` (macros/materializations/by_day.sql), and
    HOURLY_MODELS are those that replace their rows by the hour (`replace_column`)."""
    manifest = json.loads(prepare_manifest().read_text())
    found = {
        (node["schema"], node["name"])
        for node in manifest["nodes"].values()
        if node["resource_type"] == "model"
        and node["config"]["materialized"] in ("incremental", "by_day")
    }
    assert found == {(schema, name) for schema, name, _ in incremental.INCREMENTAL_MODELS}
    # the models whose pieces may start within a day replace the rows of their hours: one
    # that replaced its days would keep the hours before such a piece's start twice
    hourly = {
        node["name"]
        for node in manifest["nodes"].values()
        if node["resource_type"] == "model" and node["config"].get("replace_column")
    }
    assert hourly == incremental.HOURLY_MODELS


def test_a_rebuilt_day_keeps_no_row_its_evidence_no_longer_gives(
    histories: dict, tmp_path: Path
) -> None:
    """The `by_day` materialization replaces every day of the window, not only the days
    the query returns: a staging row of a day no landed point covers (as after its batch was
    taken out) is gone once that day is rebuilt, and the other days are untouched."""
    home = tmp_path / "home"
    shutil.copytree(histories["full"], home)
    table = "staging.stg_prometheus__gpu_activity"
    with duckdb.connect(str(home / "warehouse.duckdb")) as con:
        con.execute(
            f"insert into {table} select * replace ("
            "sampled_at + interval 20 day as sampled_at, sample_day + 20 as sample_day) "
            f"from {table} where sample_day = date '2026-10-01' limit 5"
        )
        (stale,) = con.execute(
            f"select count(*) from {table} where sample_day = date '2026-10-21'"
        ).fetchone()
    assert stale == 5
    window = "2026-10-21/2026-10-22"
    per_day = _run_staging(
        home, {incremental.WINDOW_VARIABLE: window, incremental.CHECKED_VARIABLE: window}
    )
    assert per_day == {dt.date(2026, 10, day): 8 * 1440 for day in (1, 2, 3, 4)}


def _run_staging(home: Path, environment: dict[str, str]) -> dict[dt.date, int]:
    """dbt run of staging with `environment`; then its rows per day."""
    run_dbt(home, ["run", "--select", "stg_prometheus__gpu_activity"], environment)
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        query = "select sample_day, count(*) from staging.stg_prometheus__gpu_activity group by 1"
        return dict(con.execute(query).fetchall())


def test_a_model_rebuilds_and_checks_its_own_days_where_they_are_fewer(
    histories: dict, tmp_path: Path
) -> None:
    """GPULEDGER_REBUILD_MODEL_WINDOWS narrows one model's days within the window (staging
    rebuilds the days of the new samples, the roll-up the hours they reach too), and
    GPULEDGER_CHECKED_MODEL_WINDOWS the days its data tests check: a day of the window outside
    staging's own is neither replaced nor checked."""
    home = tmp_path / "home"
    shutil.copytree(histories["full"], home)
    table = "staging.stg_prometheus__gpu_activity"
    with duckdb.connect(str(home / "warehouse.duckdb")) as con:
        for shift in (20, 20, 21):  # 10-21 twice over (its grain broken), 10-22 once
            con.execute(
                f"insert into {table} select * replace ("
                f"sampled_at + interval {shift} day as sampled_at, sample_day + {shift} as "
                f"sample_day) from {table} where sample_day = date '2026-10-01' "
                "order by gpu_uuid, sampled_at limit 5"
            )
    window = "2026-10-21/2026-10-23"
    own = "stg_prometheus__gpu_activity=2026-10-22/2026-10-23"
    per_day = _run_staging(
        home, {incremental.WINDOW_VARIABLE: window, incremental.MODEL_WINDOWS_VARIABLE: own}
    )
    assert per_day[dt.date(2026, 10, 21)] == 10 and dt.date(2026, 10, 22) not in per_day
    test = [
        "test",
        "--select",
        "stg_prometheus__gpu_activity",
        "--exclude-resource-type",
        "unit_test",
    ]
    checked = {incremental.CHECKED_VARIABLE: window, incremental.CHECKED_MODEL_VARIABLE: own}
    run_dbt(home, test, checked)  # 10-22 alone: the grain holds
    with pytest.raises(BuildError, match="unique_grain_stg_prometheus__gpu_activity"):
        run_dbt(home, test, {incremental.CHECKED_VARIABLE: window})
