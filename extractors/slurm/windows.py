"""The pure half of `gpuledger ingest slurm --live`: windows, the sacct command line, watermarks.

A live run asks sacct for one window at a time. Windows follow a fixed UTC grid of
`window_hours` (24: midnight to midnight), clipped to the run's `[since, until)`, so a rerun
over the same range asks the same questions. A window's batch options name its grid cell, not
the clipped range: when a rerun (or a resume from the watermark) finds the same sacct output for
a cell, the batch id is the same and landing it is a no-op.

Selection is sacct's own: without `--state`, `-S A -E B` reports every job that was eligible or
running at some time in `[A, B)`, so a job running across several windows is reported in each,
and a job still running is reported again, final, in a later run. Staging keeps the latest word
on each job (`stg_slurm__jobs`), so overlapping reports never double count.

sacct lags the queue: a job's end reaches the accounting database seconds (or, under load,
minutes) after it left the queue. The watermark, the end of the last landed window, therefore
never advances past `now - LAG`; the next run starts there and asks again for the jobs that
ended (or whose records arrived) in the last LAG. A job cancelled while pending with a future
`--begin` is never eligible, so no window reports it; it held no GPU.

Step rows (`.batch`, `.extern`, `.0`) are kept, as Open XDMoD's command prints them: they land
in `slurm_steps` and are never counted as jobs.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from extractors.slurm.parse import XDMOD_FIELDS

LAG = dt.timedelta(minutes=5)
EPOCH = dt.datetime(1970, 1, 1)
_CLUSTER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class Window:
    """One sacct query `[start, end)`, inside the grid cell `[cell_start, cell_end)`."""

    start: dt.datetime
    end: dt.datetime
    cell_start: dt.datetime
    cell_end: dt.datetime

    def label(self) -> str:
        """`2026-11-01..2026-11-02` for whole days, else full timestamps."""
        if _is_midnight(self.start) and _is_midnight(self.end):
            return f"{self.start:%Y-%m-%d}..{self.end:%Y-%m-%d}"
        return f"{self.start:%Y-%m-%dT%H:%M:%S}..{self.end:%Y-%m-%dT%H:%M:%S}"

    def options(self, cluster: str) -> str:
        """The landing options of this window's batch: cluster and grid cell."""
        return f"mode=live;cluster={cluster};window={iso(self.cell_start)}/{iso(self.cell_end)}"


def iso(value: dt.datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%S")


def _is_midnight(value: dt.datetime) -> bool:
    return value.time() == dt.time(0)


def floor_seconds(value: dt.datetime) -> dt.datetime:
    return value.replace(microsecond=0)


def check_cluster_name(cluster: str) -> str:
    """A cluster name as Slurm spells them; it also names the watermark file."""
    if not _CLUSTER_NAME.match(cluster):
        raise ValueError(f"invalid cluster name {cluster!r} (letters, digits, '_', '.', '-')")
    return cluster


def plan_windows(since: dt.datetime, until: dt.datetime, window_hours: int) -> list[Window]:
    """The windows covering `[since, until)` on the UTC grid of `window_hours` (naive UTC).

    Empty when `since >= until`. Raises ValueError when `window_hours < 1`.
    """
    if window_hours < 1:
        raise ValueError(f"window hours must be at least 1, not {window_hours}")
    step = dt.timedelta(hours=window_hours)
    windows = []
    cell_start = EPOCH + (since - EPOCH) // step * step
    while cell_start < until:
        cell_end = cell_start + step
        windows.append(
            Window(
                start=max(since, cell_start),
                end=min(until, cell_end),
                cell_start=cell_start,
                cell_end=cell_end,
            )
        )
        cell_start = cell_end
    return windows


def next_watermark(
    previous: dt.datetime | None, window_end: dt.datetime, now: dt.datetime
) -> dt.datetime:
    """The watermark once a window ending at `window_end` has landed.

    Never past `now - LAG` (sacct lags the queue), never behind `previous` (re-ingesting an old
    range does not rewind a resume point).
    """
    candidate = min(window_end, floor_seconds(now - LAG))
    return candidate if previous is None else max(previous, candidate)


def sacct_argv(sacct: str, cluster: str, window: Window) -> list[str]:
    """Open XDMoD's sacct command for one window (run it with TZ=UTC)."""
    return [
        sacct,
        "--clusters",
        cluster,
        "--allusers",
        "--parsable2",
        "--noheader",
        "--duplicates",
        "--format",
        ",".join(XDMOD_FIELDS),
        "-S",
        iso(window.start),
        "-E",
        iso(window.end),
    ]


def sacct_env(environ: dict[str, str]) -> dict[str, str]:
    """sacct's environment: times in UTC and in ISO form whatever the caller's settings."""
    env = {k: v for k, v in environ.items() if k not in ("SACCT_FORMAT", "SLURM_TIME_FORMAT")}
    env.update(TZ="UTC", SLURM_TIME_FORMAT="standard")
    return env
