"""The benchmark's results file: a run's row joins the rows table, before the prose after it."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from benchmarks.results import COLUMNS, HEADER, Result, append_row
from benchmarks.steps import Step


def _result(second_close: float | None = None) -> Result:
    step = Step(name="ingest prometheus", seconds=2.0, peak_rss_mib=100, records=10, landed=10)
    close = Step(name="close", seconds=30.0, peak_rss_mib=900)
    floor = Step(name="floor", seconds=1.0, peak_rss_mib=200)
    return Result(
        gpus=8, days=1, startup_seconds=0.5, runs=3, prometheus=step, sacct=step,
        ingest_peak_mib=100, close=close, floor=floor, peak_mib=900, daily_seconds=3.0,
        second_close=None if second_close is None else Step(
            name="close 2026-11", seconds=second_close, peak_rss_mib=900
        ),
    )  # fmt: skip


def test_a_row_joins_the_table_before_the_prose_after_it(tmp_path: Path) -> None:
    path = tmp_path / "results.md"
    first = append_row(path, _result(), dt.date(2026, 12, 4), "aaaaaaa", "2 cores")
    assert path.read_text() == HEADER + first + "\n"
    path.write_text(path.read_text() + "\n## Notes\n\nA close took 30 s.\n")
    second = append_row(path, _result(), dt.date(2026, 12, 5), "bbbbbbb", "2 cores")
    lines = path.read_text().splitlines()
    header = lines.index(f"| {' | '.join(COLUMNS)} |")
    assert lines[header + 2 : header + 4] == [first, second]
    assert lines[-3:] == ["## Notes", "", "A close took 30 s."]


def test_a_second_close_dearer_than_the_first_is_a_target_missed() -> None:
    assert "2nd close" not in _result().missed()
    assert "2nd close" not in _result(second_close=30.0).missed()
    assert "2nd close" in _result(second_close=34.5).missed()
