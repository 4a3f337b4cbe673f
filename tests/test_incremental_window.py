"""gpuledger.core.incremental without dbt: the days a batch's telemetry touches, the window
of the batches not built yet, and a large window cut into runs of days."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from extractors.rawstore import BATCHES_TABLE, raw_dir
from gpuledger.core import incremental


def _land(home: Path, batch: str, table: str, times: list[dt.datetime], stats: bool = True) -> None:
    """A batch's manifest (its presence is what counts here) and one telemetry file."""
    for folder, rows in ((BATCHES_TABLE, {"batch_id": [batch]}), (table, {"sampled_at": times})):
        (raw_dir(home) / folder).mkdir(parents=True, exist_ok=True)
        pq.write_table(
            pa.table(rows), raw_dir(home) / folder / f"{batch}.parquet", write_statistics=stats
        )


def test_a_new_home_rebuilds_every_day_its_batches_touch_a_day_out_either_side(
    tmp_path: Path,
) -> None:
    _land(tmp_path, "a", "prometheus_points", [dt.datetime(2026, 10, 3, 23, 59)])
    _land(
        tmp_path, "b", "vgpu_samples", [dt.datetime(2026, 10, 9), dt.datetime(2026, 10, 7)], False
    )
    days = incremental.window(tmp_path)
    assert (days.start, days.end, days.full_refresh) == (
        dt.date(2026, 10, 2), dt.date(2026, 10, 11), True,
    )  # fmt: skip
    assert sorted(days.batches) == ["a", "b"]
    assert days.environment()[incremental.WINDOW_VARIABLE] == "2026-10-02/2026-10-11"
    assert days.args() == ["--full-refresh"]


def test_batches_without_telemetry_name_one_empty_day(tmp_path: Path) -> None:
    (raw_dir(tmp_path) / BATCHES_TABLE).mkdir(parents=True)
    pq.write_table(pa.table({"batch_id": ["s"]}), raw_dir(tmp_path) / BATCHES_TABLE / "s.parquet")
    days = incremental.window(tmp_path, rebuild=())
    assert (days.start, days.days) == (incremental.EMPTY_DAY, 1)
    assert "nothing new to rebuild" in str(days)


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
    assert len(daily) == 2 + 6 * 5
    hourly = incremental.chunks(tmp_path, days, limit=5, model="int_device_activity_hourly")
    assert len(hourly) == 2 + 6 * 2 and str(hourly[1]) == "2026-10-01/2026-10-01T12:00:00"
    hourly = incremental.chunks(tmp_path, days, limit=15, model="int_device_activity_hourly")
    assert [(p.start.day, p.end.day) for p in hourly] == [(30, 3), (3, 5), (5, 8)]
    done = days.done()
    assert done.environment() == {
        incremental.WINDOW_VARIABLE: "2020-01-01/2020-01-02",
        incremental.CHECKED_VARIABLE: "2026-09-30/2026-10-08",
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
        "stg_prometheus__gpu_activity": 1, "int_device_activity_hourly": 1,
    }  # fmt: skip
    assert incremental.ALONE_ROWS < 17_701_915  # a day of the 4,096-GPU benchmark fleet
    cut = {"stg_prometheus__gpu_activity": incremental.cut(days, per_day, limit=30)}
    assert incremental.pieces_environment(cut) == {
        incremental.PIECES_VARIABLE: '{"stg_prometheus__gpu_activity": '
        '["2026-09-30/2026-10-02", "2026-10-02/2026-10-03", "2026-10-03/2026-10-05"]}'
    }
