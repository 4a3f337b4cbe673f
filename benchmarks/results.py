"""The benchmark's results row: the rates, peaks and ratios issue 11 states its targets in,
and which targets the run met (reported, never asserted)."""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
from dataclasses import dataclass
from pathlib import Path

from benchmarks.steps import Step

COLUMNS = (
    "date", "commit", "GPUs", "days", "jobs+pods", "CLI start s", "Prometheus points/s",
    "sacct lines/s",
    "ingest peak MiB", "close s", "floor s", "close/floor", "peak RSS MiB", "daily s",
    "daily/close", "2nd/1st close", "targets missed", "machine",
)  # fmt: skip
HEADER = f"""# gpuledger benchmark

`python -m benchmarks.close_benchmark --gpus N --days D [--months 2]` (`make bench`): a fleet
month through the real file formats and `gpuledger ingest`, the close, the floor, and a
daily run (the module's doc says what each step is). Times are wall clock, RSS the peak of
the step's process tree. Targets (issue 11): Prometheus >= 1M points/s; sacct >= 200k
lines/s; ingest peak < 1 GiB; close <= 10x floor; peak RSS < 4 GiB; daily <= 15% of the
close; with --months 2, the second month's close no dearer than the first (`2nd close`).
`targets missed` lists those the row does not meet. Rates are records over the whole
ingest command, its start-up (`CLI start s`, the imports before it reads a byte) included.

| {" | ".join(COLUMNS)} |
|{"---|" * len(COLUMNS)}
"""


@dataclass(frozen=True)
class Result:
    gpus: int
    days: int
    startup_seconds: float
    runs: int
    prometheus: Step
    sacct: Step
    ingest_peak_mib: float
    close: Step
    floor: Step
    peak_mib: float
    daily_seconds: float
    second_close: Step | None

    def missed(self) -> list[str]:
        """The targets this run does not meet."""
        targets = {
            "prometheus": self.prometheus.rate >= 1_000_000,
            "sacct": self.sacct.rate >= 200_000,
            "ingest RSS": self.ingest_peak_mib < 1024,
            "close/floor": self.close.seconds <= 10 * self.floor.seconds,
            "peak RSS": self.peak_mib < 4096,
            "daily/close": self.daily_seconds <= 0.15 * self.close.seconds,
            "2nd close": self.second_close is None
            or self.second_close.seconds <= self.close.seconds,
        }
        return [name for name, met in targets.items() if not met]


def row(result: Result, date: dt.date, commit: str, machine: str) -> str:
    second = (
        "-"
        if result.second_close is None
        else f"{result.second_close.seconds / result.close.seconds:.2f}"
    )
    cells = (
        str(date), commit, str(result.gpus), str(result.days), f"{result.runs:,}",
        f"{result.startup_seconds:.1f}",
        f"{result.prometheus.rate:,.0f}", f"{result.sacct.rate:,.0f}",
        f"{result.ingest_peak_mib:,.0f}", f"{result.close.seconds:.1f}",
        f"{result.floor.seconds:.1f}", f"{result.close.seconds / result.floor.seconds:.1f}",
        f"{result.peak_mib:,.0f}", f"{result.daily_seconds:.1f}",
        f"{result.daily_seconds / result.close.seconds:.2f}", second,
        ", ".join(result.missed()) or "none", machine,
    )  # fmt: skip
    return f"| {' | '.join(cells)} |"


def run_identity() -> tuple[str, str]:
    """(the checkout's short commit, the machine: cores and Python) a row names."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return commit, f"{os.cpu_count()} cores, {platform.python_version()}"


def insert_row(lines: list[str], header: str, line: str) -> None:
    """Insert `line` after the last row of the table whose header line is `header` (at the
    end of `lines` when there is none: prose may follow a table)."""
    at = len(lines)
    if header in lines:
        at = lines.index(header) + 1
        while at < len(lines) and lines[at].startswith("|"):
            at += 1
    lines.insert(at, line)


def append_row(path: Path, result: Result, date: dt.date, commit: str, machine: str) -> str:
    """Add the run's row to the rows table of `path`, after its last row (the file is
    written with its header when new; a file whose table is gone gets the row at its end, as
    prose may follow the table); returns it."""
    line = row(result, date, commit, machine)
    if not path.exists():
        path.write_text(HEADER)
    lines = path.read_text().splitlines()
    insert_row(lines, f"| {' | '.join(COLUMNS)} |", line)
    path.write_text("\n".join(lines) + "\n")
    return line
