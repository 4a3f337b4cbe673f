"""Every source's files of a run of days, written through `benchmarks.formats`: what each
ingest step of the benchmark lands, and how many records each holds."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.fleet import Fleet
from benchmarks.formats.kubernetes import write_watch_day
from benchmarks.formats.prometheus import write_dcgm_day, write_vllm_day
from benchmarks.formats.requests import day_requests, write_requests_day
from benchmarks.formats.slurm import write_sacct_day


@dataclass
class Files:
    """Per source, the files written and the records they hold."""

    paths: dict[str, list[Path]] = field(default_factory=dict)
    records: dict[str, int] = field(default_factory=dict)

    def add(self, source: str, paths: Sequence[Path], records: int) -> None:
        self.paths.setdefault(source, []).extend(paths)
        self.records[source] = self.records.get(source, 0) + records


def write_days(folder: Path, fleet: Fleet, days: Sequence[dt.datetime]) -> Files:
    """sacct, pod watch, DCGM and vLLM responses and the gateway log of each day."""
    folder.mkdir(parents=True, exist_ok=True)
    files = Files()
    for day in days:
        sacct = folder / f"sacct-{day:%Y-%m-%d}.txt"
        files.add("slurm", [sacct], write_sacct_day(sacct, fleet, day))
        if fleet.kubernetes_nodes:
            watch = folder / f"kubectl-get-pods-watch-{day:%Y-%m-%d}.jsonl"
            files.add("kubernetes", [watch], write_watch_day(watch, fleet, day))
        files.add("prometheus", *write_dcgm_day(folder, fleet, day))
        requests = day_requests(fleet, day)
        files.add("prometheus", *write_vllm_day(folder, fleet, day, requests))
        if requests:
            log = folder / f"gateway-{day:%Y-%m-%d}.jsonl"
            files.add("requests", [log], write_requests_day(log, requests))
    return files
