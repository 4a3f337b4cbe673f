"""`gpuledger ingest slurm --live` without a cluster: window arithmetic, the sacct command line,
watermarks, and whole runs against a fake sacct that prints a real capture window by window
(tests/fixtures/real/slurm/slurm22.05_sacct_xdmod_fields.txt), including a crash mid-run."""

from __future__ import annotations

import datetime as dt
import json
import stat
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import extractors.slurm.client as client
from extractors.rawstore import batch_files, batch_manifest
from extractors.slurm.parse import XDMOD_FIELDS, parse_sacct_text
from extractors.slurm.records import JOBS_TABLE, STEPS_TABLE
from extractors.slurm.windows import (
    LAG,
    Window,
    check_cluster_name,
    next_watermark,
    plan_windows,
    sacct_argv,
    sacct_env,
)
from tests.conftest import FIXTURES, run_cli

CAPTURE = FIXTURES / "real" / "slurm" / "slurm22.05_sacct_xdmod_fields.txt"
D = dt.datetime


# --- pure: windows, watermark, command line -------------------------------------------------


@pytest.mark.parametrize(
    ("since", "until", "hours", "expected"),
    [
        # whole days on the midnight grid
        (D(2026, 11, 1), D(2026, 11, 3), 24, [(D(2026, 11, 1), D(2026, 11, 2)),
                                               (D(2026, 11, 2), D(2026, 11, 3))]),
        # a start and an end inside a cell are clipped; the cells stay on the grid
        (D(2026, 11, 1, 6), D(2026, 11, 2, 12, 30), 24, [(D(2026, 11, 1, 6), D(2026, 11, 2)),
                                                         (D(2026, 11, 2), D(2026, 11, 2, 12, 30))]),
        # inside one cell
        (D(2026, 11, 1, 6), D(2026, 11, 1, 7), 24, [(D(2026, 11, 1, 6), D(2026, 11, 1, 7))]),
        # 6-hour grid
        (D(2026, 11, 1, 5), D(2026, 11, 1, 13), 6, [(D(2026, 11, 1, 5), D(2026, 11, 1, 6)),
                                                    (D(2026, 11, 1, 6), D(2026, 11, 1, 12)),
                                                    (D(2026, 11, 1, 12), D(2026, 11, 1, 13))]),
        # nothing to do
        (D(2026, 11, 2), D(2026, 11, 2), 24, []),
        (D(2026, 11, 3), D(2026, 11, 2), 24, []),
    ],
)  # fmt: skip
def test_plan_windows(
    since: dt.datetime, until: dt.datetime, hours: int, expected: list[tuple[D, D]]
) -> None:
    windows = plan_windows(since, until, hours)
    assert [(w.start, w.end) for w in windows] == expected
    step = dt.timedelta(hours=hours)
    for w in windows:
        assert w.cell_end - w.cell_start == step
        assert w.cell_start <= w.start < w.end <= w.cell_end
        assert (w.cell_start - D(1970, 1, 1)) % step == dt.timedelta(0)


def test_plan_windows_refuses_zero_hours() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        plan_windows(D(2026, 11, 1), D(2026, 11, 2), 0)


def test_window_label_and_options_name_the_grid_cell() -> None:
    whole, partial = plan_windows(D(2026, 11, 1), D(2026, 11, 2, 6, 30, 5), 24)
    assert whole.label() == "2026-11-01..2026-11-02"
    assert partial.label() == "2026-11-02T00:00:00..2026-11-02T06:30:05"
    assert partial.options("c1") == (
        "mode=live;cluster=c1;window=2026-11-02T00:00:00/2026-11-03T00:00:00"
    )
    # a later end in the same cell is the same batch identity (content decides the rest)
    (later,) = plan_windows(D(2026, 11, 2, 3), D(2026, 11, 2, 9), 24)
    assert later.options("c1") == partial.options("c1")
    assert later.options("c2") != partial.options("c1")


@pytest.mark.parametrize(
    ("previous", "window_end", "now", "expected"),
    [
        (None, D(2026, 11, 2), D(2026, 11, 5), D(2026, 11, 2)),
        # never past now - LAG
        (None, D(2026, 11, 5, 12), D(2026, 11, 5, 12, 0, 30), D(2026, 11, 5, 11, 55, 30)),
        # never backwards
        (D(2026, 11, 4), D(2026, 11, 2), D(2026, 11, 5), D(2026, 11, 4)),
        (D(2026, 11, 1), D(2026, 11, 2), D(2026, 11, 5), D(2026, 11, 2)),
    ],
)
def test_next_watermark(
    previous: dt.datetime | None, window_end: dt.datetime, now: dt.datetime, expected: dt.datetime
) -> None:
    assert dt.timedelta(minutes=5) == LAG
    assert next_watermark(previous, window_end, now) == expected


def test_sacct_argv_is_open_xdmods_command() -> None:
    window = Window(D(2026, 11, 1, 6), D(2026, 11, 2), D(2026, 11, 1), D(2026, 11, 2))
    assert sacct_argv("/usr/bin/sacct", "ledgertest", window) == [
        "/usr/bin/sacct", "--clusters", "ledgertest", "--allusers", "--parsable2", "--noheader",
        "--duplicates", "--format", ",".join(XDMOD_FIELDS),
        "-S", "2026-11-01T06:00:00", "-E", "2026-11-02T00:00:00",
    ]  # fmt: skip
    env = sacct_env({"PATH": "/bin", "TZ": "Europe/Paris", "SACCT_FORMAT": "jobid", "X": "1"})
    assert env == {"PATH": "/bin", "TZ": "UTC", "SLURM_TIME_FORMAT": "standard", "X": "1"}


@pytest.mark.parametrize("name", ["", "../etc", "a/b", "-x", "a b", "x" * 65])
def test_check_cluster_name_refuses(name: str) -> None:
    with pytest.raises(ValueError, match="invalid cluster name"):
        check_cluster_name(name)


# --- the real capture ------------------------------------------------------------------------


def test_real_capture_parses_to_the_jobs_and_gpu_seconds() -> None:
    text = CAPTURE.read_text()
    result = parse_sacct_text(text, cluster="ledgertest")
    assert (result.records_read, len(result.rejected)) == (26, 0)
    jobs = result.tables[JOBS_TABLE]
    assert sorted(j.job_id for j in jobs) == ["2", "3", "4", "5", "6", "7_0", "7_1", "8"]
    assert len(result.tables[STEPS_TABLE]) == 18
    held: Counter[str] = Counter()
    for job in jobs:
        held[job.account] += int((job.end_at - job.start_at).total_seconds()) * job.alloc_gpu_count
    assert held == {"atlas": 12, "boreal": 8}
    states = {j.job_id: (j.state, j.exit_code, j.exit_signal) for j in jobs}
    assert states["5"] == ("FAILED", 1, 0)
    assert states["6"] == ("CANCELLED", 0, 15)
    assert {j.job_id: j.job_id_raw for j in jobs if j.array_job_id} == {"7_0": "9", "7_1": "7"}


# --- whole runs against a fake sacct ---------------------------------------------------------

SINCE, UNTIL = "2024-03-01", "2024-03-04"
# the capture's 26 lines split over three daily windows: jobs 2-4, 5-8, the array
WINDOW_LINES = {"2024-03-01T00:00:00": (0, 11), "2024-03-02T00:00:00": (11, 20),
                "2024-03-03T00:00:00": (20, 26)}  # fmt: skip


def fake_sacct(folder: Path, outputs: dict[str, str], *, fail: bool = False) -> Path:
    """A sacct that prints `<folder>/<value of -S>.txt` and logs its argv and zone."""
    folder.mkdir(parents=True, exist_ok=True)
    for start, text in outputs.items():
        (folder / f"{start}.txt").write_text(text)
    failure = (
        "echo 'sacct: error: Sending PersistInit msg: Connection refused' >&2\n"
        "echo 'sacct: error: Problem talking to the database: Connection refused' >&2\n"
        "exit 1\n"
    )
    script = folder / "sacct"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "TZ=$TZ $*" >> "{folder}/argv.log"\n'
        + (failure if fail else "")
        + 'start=""\n'
        + 'while [ $# -gt 0 ]; do [ "$1" = -S ] && start=$2; shift; done\n'
        + f'[ -f "{folder}/$start.txt" ] && cat "{folder}/$start.txt"\n'
        + "exit 0\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


@pytest.fixture
def sacct(tmp_path: Path) -> Path:
    lines = CAPTURE.read_text().splitlines(keepends=True)
    outputs = {start: "".join(lines[a:b]) for start, (a, b) in WINDOW_LINES.items()}
    return fake_sacct(tmp_path / "fake", outputs)


def live(home: Path, sacct: Path, *extra: str):
    return run_cli(
        home, None, "ingest", "slurm", "--live", "--cluster", "ledgertest",
        "--sacct", str(sacct), "--until", UNTIL, *extra,
    )  # fmt: skip


def landed_jobs(home: Path) -> list[tuple[str, str]]:
    rows = []
    for path in sorted((home / "raw" / JOBS_TABLE).glob("*.parquet")):
        rows += [(r["cluster"], r["job_id"]) for r in pq.read_table(path).to_pylist()]
    return rows


def watermark(home: Path) -> str:
    return json.loads((home / "state" / "slurm" / "ledgertest.json").read_text())["watermark"]


def test_live_run_lands_each_window_and_records_the_watermark(home: Path, sacct: Path) -> None:
    result = live(home, sacct, "--since", SINCE)
    assert result.exit_code == 0, result.stderr
    progress = [line for line in result.stdout.splitlines() if line.startswith("window ")]
    assert progress == [
        "window 1/3 2024-03-01..2024-03-02: read 11, landed 11, quarantined 0",
        "window 2/3 2024-03-02..2024-03-03: read 9, landed 9, quarantined 0",
        "window 3/3 2024-03-03..2024-03-04: read 6, landed 6, quarantined 0",
    ]
    assert "total: read 26, landed 26, quarantined 0" in result.stdout
    assert sorted(j for _, j in landed_jobs(home)) == ["2", "3", "4", "5", "6", "7_0", "7_1", "8"]
    assert watermark(home) == "2024-03-04T00:00:00"
    calls = (sacct.parent / "argv.log").read_text().splitlines()
    assert len(calls) == 3
    assert all(c.startswith("TZ=UTC --clusters ledgertest --allusers --parsable2") for c in calls)
    assert calls[1].endswith("-S 2024-03-02T00:00:00 -E 2024-03-03T00:00:00")
    files = {b.file: b.options for b in batch_manifest(home)}
    assert files["sacct:ledgertest:2024-03-02..2024-03-03"] == (
        "mode=live;cluster=ledgertest;window=2024-03-02T00:00:00/2024-03-03T00:00:00"
    )


def test_rerun_lands_nothing_new(home: Path, sacct: Path) -> None:
    assert live(home, sacct, "--since", SINCE).exit_code == 0
    batches = batch_manifest(home)
    again = live(home, sacct, "--since", SINCE)
    assert again.exit_code == 0
    assert again.stdout.count("(already landed)") == 3
    assert batch_manifest(home) == batches
    # resuming from the watermark (the end of the range) asks sacct nothing
    resumed = live(home, sacct)
    assert resumed.exit_code == 0
    assert "nothing to ingest from 2024-03-04T00:00:00 to 2024-03-04T00:00:00" in resumed.stdout
    assert len((sacct.parent / "argv.log").read_text().splitlines()) == 6


def test_a_crash_in_window_2_resumes_without_duplicates(
    tmp_path: Path, home: Path, sacct: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clean_home = tmp_path / "clean"
    assert live(clean_home, sacct, "--since", SINCE).exit_code == 0

    real_land = client.land
    calls = []

    def land_then_crash(*args, **kwargs):
        calls.append(kwargs["file"])
        if len(calls) == 2:
            raise OSError("disk full")
        return real_land(*args, **kwargs)

    monkeypatch.setattr(client, "land", land_then_crash)
    with pytest.raises(OSError, match="disk full"):
        live(home, sacct, "--since", SINCE)
    assert watermark(home) == "2024-03-02T00:00:00"  # window 1 landed, window 2 did not
    assert len(batch_manifest(home)) == 1
    monkeypatch.setattr(client, "land", real_land)

    resumed = live(home, sacct)  # no --since: from the watermark
    assert resumed.exit_code == 0, resumed.stderr
    assert [
        line.split(":")[0] for line in resumed.stdout.splitlines() if line[:7] == "window "
    ] == [
        "window 1/2 2024-03-02..2024-03-03",
        "window 2/2 2024-03-03..2024-03-04",
    ]
    assert [b.batch_id for b in batch_manifest(home)] == [
        b.batch_id for b in batch_manifest(clean_home)
    ]
    jobs = landed_jobs(home)
    assert len(jobs) == len(set(jobs)) == 8
    assert watermark(home) == "2024-03-04T00:00:00"


def test_the_watermark_stays_lag_behind_now(tmp_path: Path, home: Path) -> None:
    text = CAPTURE.read_text()
    sacct = fake_sacct(tmp_path / "fake", {"2024-03-03T00:00:00": text})
    now = D(2024, 3, 3, 12, 0, 0)
    reports = client.ingest_live(
        home, cluster="ledgertest", since=D(2024, 3, 3), sacct=str(sacct), now=now,
        progress=lambda line: None,
    )  # fmt: skip
    assert [r.records_read for r in reports] == [26]
    assert watermark(home) == "2024-03-03T11:55:00"
    # the next run asks again from now - LAG; the same answer is the same batch
    (again,) = client.ingest_live(
        home, cluster="ledgertest", sacct=str(sacct), now=now + dt.timedelta(minutes=1),
        progress=lambda line: None,
    )  # fmt: skip
    calls = (sacct.parent / "argv.log").read_text().splitlines()
    assert calls[-1].endswith("-S 2024-03-03T11:55:00 -E 2024-03-03T12:01:00")
    assert (again.records_read, again.already_landed) == (0, False)  # -S 11:55 has no file
    assert watermark(home) == "2024-03-03T11:56:00"


# --- bad input -------------------------------------------------------------------------------


def test_a_bad_line_in_a_window_is_quarantined_with_its_place(tmp_path: Path, home: Path) -> None:
    good = CAPTURE.read_text().splitlines()[0]
    fields = good.split("|")
    fields[XDMOD_FIELDS.index("eligible")] = "yesterday"
    bad = "|".join(fields)
    sacct = fake_sacct(tmp_path / "fake", {"2024-03-01T00:00:00": f"{good}\n{bad}\n"})
    result = live(home, sacct, "--since", SINCE)
    assert result.exit_code == 0, result.stderr
    assert "window 1/3 2024-03-01..2024-03-02: read 2, landed 1, quarantined 1" in result.stdout
    assert (
        "quarantined sacct:ledgertest:2024-03-01..2024-03-02:2: field Eligible: "
        "invalid timestamp 'yesterday'" in result.stdout
    )
    (row,) = pq.read_table(batch_files(home / "raw" / "quarantine")[0]).to_pylist()
    assert (row["file"], row["line"], row["field"], row["raw"]) == (
        "sacct:ledgertest:2024-03-01..2024-03-02",
        2,
        "Eligible",
        bad,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--since", SINCE, "--sacct", "/nonexistent/sacct"), "sacct not found: '/nonexistent/"),
        (("--since", SINCE, "--sacct", str(CAPTURE)), "sacct cannot be run: "),
        ((), "no watermark for cluster ledgertest yet"),
        (("--since", SINCE, "--timezone", "Europe/Paris"), "--timezone: only with --file"),
    ],
)  # fmt: skip
def test_live_usage_errors_are_messages(home: Path, args: tuple[str, ...], message: str) -> None:
    result = run_cli(
        home, None, "ingest", "slurm", "--live", "--cluster", "ledgertest", "--until", UNTIL, *args
    )
    assert result.exit_code == 1
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_failing_sacct_stops_the_run_with_its_message(tmp_path: Path, home: Path) -> None:
    sacct = fake_sacct(tmp_path / "fake", {}, fail=True)
    result = live(home, sacct, "--since", SINCE)
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "gpuledger: window 2024-03-01..2024-03-02: sacct exited with status 1: "
        "sacct: error: Problem talking to the database: Connection refused (command: "
    )
    assert not (home / "state" / "slurm" / "ledgertest.json").exists()


def test_an_unreadable_watermark_is_a_message(home: Path, sacct: Path) -> None:
    state = home / "state" / "slurm" / "ledgertest.json"
    state.parent.mkdir(parents=True)
    state.write_text('{"watermark": "soon"}')
    result = live(home, sacct)
    assert result.exit_code == 1
    assert f"gpuledger: {state}: unreadable watermark" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("--file", "x.txt", "--live"),
        ("--since", "yesterday", "--live", "--cluster", "c"),
        ("--window-hours", "0", "--live", "--cluster", "c"),
        ("--cluster", "c"),
    ],
)
def test_bad_arguments_exit_2(home: Path, args: tuple[str, ...]) -> None:
    with pytest.raises(SystemExit) as exc:
        run_cli(home, None, "ingest", "slurm", *args)
    assert exc.value.code == 2


def test_live_only_options_are_refused_in_file_mode(home: Path) -> None:
    result = run_cli(
        home, None, "ingest", "slurm", "--file", str(CAPTURE), "--since", SINCE, "--sacct", "x"
    )
    assert (result.exit_code, result.stderr) == (
        1,
        "gpuledger: --since, --sacct: only with --live\n",
    )
