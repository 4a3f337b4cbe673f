"""One benchmark step: a command a user runs, in a subprocess, timed wall-clock with the peak
resident memory of its process tree (`benchmarks.measure`), and for an ingest what its
batches' manifests say it read, landed and held back."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq


class StepFailed(RuntimeError):
    """A step's command exited non-zero (the message names it and ends its log)."""


@dataclass(frozen=True)
class Step:
    name: str
    seconds: float
    peak_rss_mib: float
    records: int = 0  # records read (an ingest), 0 otherwise
    landed: int = 0
    quarantined: int = 0
    unit: str = "records"

    @property
    def rate(self) -> float:
        return self.records / self.seconds if self.seconds else 0.0

    def line(self) -> str:
        text = f"{self.name:<34} {self.seconds:8.1f} s  peak RSS {self.peak_rss_mib:7,.0f} MiB"
        if self.records:
            text += (
                f"  {self.records:>12,} {self.unit} {self.rate:>12,.0f}/s"
                f"  landed {self.landed:,} quarantined {self.quarantined:,}"
            )
        return text


def run_command(name: str, argv: Sequence[str], log: Path) -> Step:
    """Run `argv` (through `benchmarks.measure`) with its output to `log`; raises StepFailed
    when it fails."""
    log.parent.mkdir(parents=True, exist_ok=True)
    measured = log.with_suffix(".measure.json")
    launcher = [sys.executable, "-m", "benchmarks.measure", str(measured), "--", *argv]
    with log.open("w") as out:
        code = subprocess.call(launcher, stdout=out, stderr=subprocess.STDOUT)
    if code != 0:
        tail = log.read_text(errors="replace")[-3000:]
        raise StepFailed(f"{name}: exit {code} ({' '.join(argv[:6])} ...)\n{tail}")
    figures = json.loads(measured.read_text())
    return Step(name, figures["seconds"], figures["peak_rss_kib"] / 1024)


def manifests(home: Path) -> set[Path]:
    folder = home / "raw" / "batches"
    return set(folder.glob("*.parquet")) if folder.exists() else set()


def run_ingest(name: str, argv: Sequence[str], log: Path, home: Path, unit: str) -> Step:
    """An ingest step: `run_command`, then the counts of the batches it landed."""
    before = manifests(home)
    step = run_command(name, argv, log)
    read = landed = quarantined = 0
    for path in sorted(manifests(home) - before):
        for row in pq.read_table(path).to_pylist():
            read += row["records_read"]
            landed += row["records_landed"]
            quarantined += row["records_quarantined"]
    return Step(step.name, step.seconds, step.peak_rss_mib, read, landed, quarantined, unit)
