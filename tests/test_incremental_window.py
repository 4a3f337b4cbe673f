"""gpuledger.core.incremental without dbt: the days a batch's telemetry touches, the window
of the batches not built yet, and a large window cut into runs of days."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from extractors.rawstore import BATCHES_TABLE, raw_dir
from gpuledger.core import incremental
from gpuledger.core.home import warehouse_path
from gpuledger.core.warehouse import connect


def _land(home: Path, batch: str, table: str, times: list[dt.datetime], stats: bool = True) -> None:
    """A batch's manifest (its presence is what counts here) and one telemetry file."""
    for folder, rows in ((BATCHES_TABLE, {"batch_id": [batch]}), (table, {"sampled_at": times})):
        (raw_dir(home) / folder).mkdir(parents=True, exist_ok=True)
        pq.write_table(
            pa.table(rows), raw_dir(home) / folder / f"{batch}.parquet", write_statistics=stats
        )


def test_a_new_home_rebuilds_the_days_its_batches_touch_each_model_as_far_as_a_sample_reaches(
    tmp_path: Path,
) -> None:
    _land(
        tmp_path,
        "a",
        "prometheus_points",
        [dt.datetime(2026, 10, 3, 0, 30), dt.datetime(2026, 10, 3, 23, 59)],
    )
    _land(
        tmp_path, "b", "vgpu_samples", [dt.datetime(2026, 10, 9), dt.datetime(2026, 10, 7)], False
    )
    days = incremental.window(tmp_path)
    # the roll-up: from the day an hour before the first sample (10-02 23:30) to the day two
    # hours after the last (10-09 02:00); staging: the days the samples are on
    assert (days.start, days.end, days.full_refresh) == (
        dt.date(2026, 10, 2), dt.date(2026, 10, 10), True,
    )  # fmt: skip
    assert days.model_days("int_device_activity_hourly") == (days.start, days.end)
    assert days.model_days("stg_prometheus__gpu_activity") == (
        dt.date(2026, 10, 3), dt.date(2026, 10, 10),
    )  # fmt: skip
    assert sorted(days.batches) == ["a", "b"]
    assert days.environment() == {
        incremental.WINDOW_VARIABLE: "2026-10-02/2026-10-10",
        incremental.NOTHING_VARIABLE: "",
        incremental.CHECKED_VARIABLE: "2026-10-02/2026-10-10",
        incremental.MODEL_WINDOWS_VARIABLE: (
            "stg_prometheus__gpu_activity=2026-10-03/2026-10-10,"
            "int_dcgm_device_days=2026-10-03/2026-10-10"
        ),
        incremental.CHECKED_MODEL_VARIABLE: (
            "stg_prometheus__gpu_activity=2026-10-03/2026-10-10,"
            "int_dcgm_device_days=2026-10-03/2026-10-10"
        ),
        incremental.KEYED_VARIABLE: "",  # none named: the keyed staging is made whole
    }
    assert days.args() == ["--full-refresh"]
    assert "stg_prometheus__gpu_activity 7 day(s) 2026-10-03 to 2026-10-09" in str(days)


def test_a_daily_run_rebuilds_staging_for_the_new_day_alone(tmp_path: Path) -> None:
    """A day's batch after the day before was built: staging rebuilds that day, not the one
    before (whose samples did not change); the roll-up the day before too (its last hour's
    samples get a next neighbour) and the day after (the last samples' intervals run into
    it). The day before's rows count in the pieces: the roll-up reads them."""
    minutes = [dt.datetime(2026, 10, 4) + dt.timedelta(minutes=m) for m in range(1440)]
    _land(tmp_path, "d3", "prometheus_points", [t - dt.timedelta(days=1) for t in minutes])
    _land(tmp_path, "d4", "prometheus_points", minutes)
    # the window of the one new batch (window() takes every batch the warehouse lacks)
    days = incremental._window(incremental._spans(tmp_path, ["d4"]), ("d4",), False, "")
    assert days.model_days("stg_prometheus__gpu_activity") == (
        dt.date(2026, 10, 4), dt.date(2026, 10, 5),
    )  # fmt: skip
    assert (days.start, days.end) == (dt.date(2026, 10, 3), dt.date(2026, 10, 6))
    per_day = incremental.day_rows(tmp_path, days)
    assert per_day == {dt.date(2026, 10, 3): 1440, dt.date(2026, 10, 4): 1440}
    # whether the window shares the build: each model's rows on its own days, over its
    # CHUNK_SCALE (staging the new day's 1,440; the roll-up the window's 2,880 / 4), not the
    # window's 2,880 (a day of 1,024 GPUs fits beside the build; its window did not)
    models = [model for _, model, _ in incremental.INCREMENTAL_MODELS]
    rows = {model: incremental.model_rows(days, per_day, model) for model in models}
    assert rows == {
        "stg_prometheus__gpu_activity": 1440,
        "int_device_activity_hourly": 720,
        "int_dcgm_device_days": 90,
        "int_node_telemetry_hourly": 180,
    }
    assert incremental.plan(days, per_day, alone_rows=1440) is None
    assert incremental.plan(days, per_day, alone_rows=1439) is not None
    pieces = incremental.plan(days, per_day, alone_rows=0)
    assert pieces is not None
    assert [str(p) for p in pieces["stg_prometheus__gpu_activity"]] == ["2026-10-04/2026-10-05"]
    # the roll-up's days are 3 to 5, its piece the hours its samples reach: from the last
    # hour of the day before (its samples' next neighbours are new) to 02:00 of the day after
    assert days.model_days("int_device_activity_hourly") == (
        dt.date(2026, 10, 3), dt.date(2026, 10, 6),
    )  # fmt: skip
    assert [str(p) for p in pieces["int_device_activity_hourly"]] == [
        "2026-10-03T23:00:00/2026-10-05T02:00:00"
    ]
    # the node roll-up rebuilds the same hours: its dcgm hour is the roll-up's rows of that
    # hour, its nvml hour the rounds of that hour and the one before
    assert days.model_days("int_node_telemetry_hourly") == (
        dt.date(2026, 10, 3), dt.date(2026, 10, 6),
    )  # fmt: skip
    assert [str(p) for p in pieces["int_node_telemetry_hourly"]] == [
        "2026-10-03T23:00:00/2026-10-05T02:00:00"
    ]
    # rebuilt before the build, the days are still what the models' data tests check
    assert days.done().environment() == {
        incremental.WINDOW_VARIABLE: "2020-01-01/2020-01-02",
        incremental.NOTHING_VARIABLE: "1",  # rebuilt before the build
        incremental.CHECKED_VARIABLE: "2026-10-03/2026-10-06",
        incremental.MODEL_WINDOWS_VARIABLE: "",
        incremental.CHECKED_MODEL_VARIABLE: (
            "stg_prometheus__gpu_activity=2026-10-04/2026-10-05,"
            "int_dcgm_device_days=2026-10-04/2026-10-05"
        ),
        incremental.KEYED_VARIABLE: "",  # none named: the keyed staging is made whole
    }
    # a batch from 05:00 reaches the roll-up's hours of its own day only
    late = incremental._window(
        [(dt.datetime(2026, 10, 4, 5), dt.datetime(2026, 10, 4, 20))], (), False, ""
    )
    assert (late.start, late.end, late.own) == (dt.date(2026, 10, 4), dt.date(2026, 10, 5), ())
    # a day named to rebuild: staging that day, the roll-up a day out either side
    named = incremental.window(tmp_path, rebuild=[dt.date(2026, 10, 10)])
    assert named.model_days("stg_prometheus__gpu_activity")[1] == dt.date(2026, 10, 11)
    assert named.end == dt.date(2026, 10, 12)


def test_batches_without_telemetry_name_one_empty_day(tmp_path: Path) -> None:
    (raw_dir(tmp_path) / BATCHES_TABLE).mkdir(parents=True)
    pq.write_table(pa.table({"batch_id": ["s"]}), raw_dir(tmp_path) / BATCHES_TABLE / "s.parquet")
    days = incremental.window(tmp_path, rebuild=())
    assert (days.start, days.days) == (incremental.EMPTY_DAY, 1)
    assert "nothing new to rebuild" in str(days)
    # the by_day models are told to leave their tables as they are, unless made whole (the
    # home's first build)
    assert days.full_refresh
    assert days.environment()[incremental.NOTHING_VARIABLE] == ""
    later = dataclasses.replace(days, full_refresh=False)
    assert later.environment()[incremental.NOTHING_VARIABLE] == "1"
    # a window rebuilt in pieces before the build names nothing to the build; one with days
    # names them
    late = incremental._window(
        [(dt.datetime(2026, 10, 4, 5), dt.datetime(2026, 10, 4, 6))], (), False, ""
    )
    assert late.environment()[incremental.NOTHING_VARIABLE] == ""
    assert late.done().environment()[incremental.NOTHING_VARIABLE] == "1"


def test_a_large_window_is_cut_into_runs_of_days_under_the_limit(tmp_path: Path) -> None:
    hours = [dt.datetime(2026, 10, 1) + dt.timedelta(hours=h) for h in range(24 * 6)]
    for number, day in enumerate(range(0, len(hours), 24)):
        _land(tmp_path, f"d{number}", "prometheus_points", hours[day : day + 24])
    days = incremental.window(tmp_path)
    pieces = incremental.chunks(tmp_path, days, limit=50)
    assert [(p.start.day, p.end.day) for p in pieces] == [(30, 3), (3, 5), (5, 8)]
    assert {p.start.time() for p in pieces} == {dt.time()}  # runs of whole days
    whole = incremental.chunks(tmp_path, days, limit=10_000)
    assert [str(p) for p in whole] == ["2026-09-30/2026-10-08"]
    # a day of more rows than the limit is cut into pieces of whole hours: 24 rows a day,
    # 10 a piece, so three of 8 hours; the days without rows around them are runs of days
    hours = incremental.chunks(tmp_path, days, limit=10)
    assert [str(p) for p in hours[:4]] == [
        "2026-09-30/2026-10-01",
        "2026-10-01/2026-10-01T08:00:00",
        "2026-10-01T08:00:00/2026-10-01T16:00:00",
        "2026-10-01T16:00:00/2026-10-02",
    ]
    assert len(hours) == 2 + 6 * 3 and hours[-1].end == dt.datetime(2026, 10, 8)
    assert [p.start for p in hours[1:]] == [p.end for p in hours[:-1]]
    # the hourly roll-up takes CHUNK_SCALE times the rows a piece: 5 a piece is a fifth of a
    # day of staging (pieces of 4 or 5 hours), 20 less than a day of the roll-up (pieces of
    # 12 hours), 60 up to two days with rows
    assert incremental.CHUNK_SCALE["int_device_activity_hourly"] == 4
    daily = incremental.chunks(tmp_path, days, limit=5, model="stg_prometheus__gpu_activity")
    assert len(daily) == 6 * 5  # staging rebuilds the days with samples only
    hourly = incremental.chunks(tmp_path, days, limit=5, model="int_device_activity_hourly")
    assert len(hourly) == 2 + 6 * 2 and str(hourly[1]) == "2026-10-01/2026-10-01T12:00:00"
    # the DCGM device days (16 times the rows, 16 a piece here) are cut in whole days only
    device_days = incremental.chunks(tmp_path, days, limit=1, model="int_dcgm_device_days")
    assert [str(p) for p in device_days] == [f"2026-10-0{d}/2026-10-0{d + 1}" for d in range(1, 7)]
    hourly = incremental.chunks(tmp_path, days, limit=15, model="int_device_activity_hourly")
    assert [str(p) for p in hourly] == [
        "2026-09-30T23:00:00/2026-10-03",  # from an hour before the first sample
        "2026-10-03/2026-10-05",
        "2026-10-05/2026-10-07T02:00:00",  # to the end of two hours after the last
    ]
    done = days.done()
    assert done.environment() == {
        incremental.WINDOW_VARIABLE: "2020-01-01/2020-01-02",
        incremental.NOTHING_VARIABLE: "1",  # rebuilt before the build
        incremental.CHECKED_VARIABLE: "2026-09-30/2026-10-08",
        incremental.MODEL_WINDOWS_VARIABLE: "",
        incremental.CHECKED_MODEL_VARIABLE: (
            "stg_prometheus__gpu_activity=2026-10-01/2026-10-07,"
            "int_dcgm_device_days=2026-10-01/2026-10-07"
        ),
        incremental.KEYED_VARIABLE: "",  # none named: the keyed staging is made whole
    }
    assert done.args() == []


def test_a_window_too_large_to_share_the_build_is_rebuilt_alone_in_pieces(
    tmp_path: Path,
) -> None:
    """A day of a large fleet (more rows than ALONE_ROWS) is rebuilt in a run of its own
    before the build, even in one piece; a small one is left to the build; the pieces reach
    the materialization as JSON of model to `start/end` days."""
    hours = [dt.datetime(2026, 10, 1) + dt.timedelta(hours=h) for h in range(24 * 3)]
    for number, day in enumerate(range(0, len(hours), 24)):
        _land(tmp_path, f"d{number}", "prometheus_points", hours[day : day + 24])
    days = incremental.window(tmp_path)
    per_day = incremental.day_rows(tmp_path, days)
    assert sum(per_day.values()) == 72
    assert incremental.plan(days, per_day, alone_rows=72) is None
    alone = incremental.plan(days, per_day, alone_rows=71)
    assert alone is not None
    assert {model: len(pieces) for model, pieces in alone.items()} == {
        "stg_prometheus__gpu_activity": 1,
        "int_device_activity_hourly": 1,
        "int_dcgm_device_days": 1,
        "int_node_telemetry_hourly": 1,
    }
    assert incremental.ALONE_ROWS < 17_701_915  # a day of the 4,096-GPU benchmark fleet
    cut = {"stg_prometheus__gpu_activity": incremental.cut(days, per_day, limit=30)}
    assert incremental.pieces_environment(cut) == {
        incremental.PIECES_VARIABLE: '{"stg_prometheus__gpu_activity": '
        '["2026-09-30/2026-10-02", "2026-10-02/2026-10-03", "2026-10-03/2026-10-05"]}'
    }


def test_a_piece_of_staging_names_the_batches_with_samples_in_it(tmp_path: Path) -> None:
    """Staging's pieces name the landed batches whose samples fall in them (from the files'
    statistics), so a piece reads neither its points twice nor every batch's series; a batch
    without a manifest is not landed and is not named."""
    day = dt.datetime(2026, 10, 4)
    _land(tmp_path, "early", "prometheus_points", [day, day + dt.timedelta(hours=11, minutes=59)])
    _land(
        tmp_path,
        "late",
        "prometheus_points",
        [day + dt.timedelta(hours=12), day + dt.timedelta(hours=23)],
    )
    _land(tmp_path, "next", "prometheus_points", [day + dt.timedelta(days=1, minutes=30)])
    (raw_dir(tmp_path) / BATCHES_TABLE / "next.parquet").unlink()  # no manifest: not landed
    morning = incremental.Piece(day, day + dt.timedelta(hours=12))
    evening = incremental.Piece(day + dt.timedelta(hours=12), day + dt.timedelta(days=1))
    staging = "stg_prometheus__gpu_activity"
    assert incremental.piece_batches(tmp_path, staging, morning) == ("early",)
    assert incremental.piece_batches(tmp_path, staging, evening) == ("late",)
    # the roll-up's piece reads an hour before it and two after: both batches
    rollup = "int_device_activity_hourly"
    assert incremental.piece_batches(tmp_path, rollup, evening) == ("early", "late")
    named = incremental.pieces_environment(
        {staging: [morning, evening], rollup: [evening]}, tmp_path
    )
    assert named[incremental.PIECE_BATCHES_VARIABLE] == (
        '{"stg_prometheus__gpu_activity": [["early"], ["late"]]}'
    )
    assert incremental.PIECE_BATCHES_VARIABLE not in incremental.pieces_environment({})


def test_a_change_of_policy_or_secrets_makes_the_keyed_models_whole_not_the_telemetry(
    tmp_path: Path,
) -> None:
    """The keyed models read the policy (a request's tenant) and the salt (a workload's user
    name) besides their records: kept keys computed under another policy would be stale."""
    _land(tmp_path, "a", "prometheus_points", [dt.datetime(2026, 10, 3, 0, 30)])
    for folder, name, text in (
        ("policy", "tenants.csv", "tenant_id\nt1\n"),
        ("secrets", "personal_data_salt.csv", "salt\ns1\n"),
    ):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / name).write_text(text)
    duckdb.connect(str(warehouse_path(tmp_path))).close()
    con = connect(tmp_path, read_only=False)
    for schema, model, _ in incremental.RECORDED_MODELS:
        con.execute(f"create schema if not exists {schema}")
        con.execute(f"create table {schema}.{model} (x integer)")
    con.close()
    incremental.record(tmp_path, incremental.window(tmp_path))
    assert incremental.window(tmp_path).keyed  # nothing changed: the keys are kept

    tenants = tmp_path / "policy" / "tenants.csv"
    tenants.write_text("tenant_id\nt1\nt2\n")
    changed = incremental.window(tmp_path)
    assert (changed.keyed, changed.full_refresh, changed.batches) == (False, False, ())
    assert changed.environment()[incremental.KEYED_VARIABLE] == ""  # made whole
    incremental.record(tmp_path, changed)
    assert incremental.window(tmp_path).keyed  # recorded under the new policy

    (tmp_path / "secrets" / "personal_data_salt.csv").write_text("salt\ns2\n")
    assert not incremental.window(tmp_path).keyed
    incremental.record(tmp_path, incremental.window(tmp_path))
    assert incremental.window(tmp_path).keyed

    # a keyed model the warehouse lacks (new to the project): they are made whole, and the
    # telemetry's days are not rebuilt
    schema, model, _ = incremental.KEYED_MODELS[-1]
    with connect(tmp_path, read_only=False) as con:
        con.execute(f"drop table {schema}.{model}")
    missing = incremental.window(tmp_path)
    assert (missing.keyed, missing.full_refresh) == (False, False)
