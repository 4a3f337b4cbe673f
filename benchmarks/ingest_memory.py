"""Ingest memory against file size: one file of N days of a source, landed by `gpuledger
ingest`, its peak resident memory and time, for growing N (issue 11: ingest peak under 1 GiB
whatever the file size).

    python -m benchmarks.ingest_memory [--gpus 4096] [--days 1 4 16] [--sources kubernetes
        requests slurm-json kubernetes-list exposition] --workdir DIR
        [--results benchmarks/results.md]

The files are the benchmark's (`benchmarks.formats`, the fleet of `benchmarks.fleet` with 8
runs per GPU a day): the pod watch events and the gateway log of days from 2026-10-01,
written one day after another into one file per source and N. `kubernetes-list` is the List
`kubectl get pods -A -o json` prints after those days (every pod of the days in its last
state, as kubectl indents it), landed with `--extracted-at` (a List carries no time).
`exposition` is the fleet's dcgm-exporter `/metrics` scrapes, one an hour, saved one after
another (each sample with its timestamp), landed by `ingest prometheus`.
`slurm-json` is a `sacct --json` document (the benchmark writes no such file): the Slurm
22.05 sample's jobs (tests/fixtures/real) copied with new ids, 6 a GPU a day (the fleet's
Slurm share of its runs), indented as sacct writes it: about 17 KiB a job. Each ingest lands
into a home of its own, in a subprocess measured by `benchmarks.measure` (the peak of its
process tree). A row per source and N goes to the section "Ingest memory against file size"
of --results.
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import json
import shutil
import sys
from pathlib import Path

from benchmarks.fleet import Fleet, make_fleet
from benchmarks.formats.kubernetes import write_pod_list, write_watch_day
from benchmarks.formats.prometheus import write_dcgm_scrapes
from benchmarks.formats.requests import day_requests, write_requests_day
from benchmarks.results import insert_row, run_identity
from benchmarks.steps import run_ingest

SECTION = "## Ingest memory against file size"
COLUMNS = (
    "date", "commit", "source", "days", "file MiB", "records", "ingest s", "records/s",
    "peak RSS MiB", "peak / file", "machine",
)  # fmt: skip
HEADER = f"| {' | '.join(COLUMNS)} |"
INTRO = f"""{SECTION}

`python -m benchmarks.ingest_memory` (`make bench-ingest-memory`): one file of N days of a
source (the benchmark's formats and fleet), landed by `gpuledger ingest`; peak RSS of the
ingest's process tree. The target is a peak under 1 GiB whatever the file size.

{HEADER}
|{"---|" * len(COLUMNS)}"""
FIRST_DAY = dt.datetime(2026, 10, 1)
SACCT_JSON_SAMPLE = (
    Path(__file__).resolve().parents[1] / "tests/fixtures/real/slurm/slurm22.05_sacct.json"
)
SLURM_JOBS_PER_GPU_DAY = 6
# the sources that are not an ingest command's name and a JSON Lines file: (command, suffix)
FILE_SOURCES = {
    "slurm-json": ("slurm", ".json"),
    "kubernetes-list": ("kubernetes", ".json"),
    "exposition": ("prometheus", ".prom"),
}


def write_sacct_json(path: Path, jobs: int) -> int:
    """A `sacct --json` document of `jobs` copies of the sample's jobs, each its own id."""
    document = json.loads(SACCT_JSON_SAMPLE.read_text())
    sample = document.pop("jobs")
    head = json.dumps(document, indent=2)[:-2]  # without the closing brace
    with path.open("w") as out:
        out.write(head + ',\n  "jobs": [\n')
        for index in range(jobs):
            job = copy.deepcopy(sample[index % len(sample)])
            job["job_id"] = 1_000_000 + index
            text = json.dumps(job, indent=2).replace("\n", "\n    ")
            out.write(("    " if index == 0 else ",\n    ") + text)
        out.write("\n  ]\n}\n")
    return jobs


def write_file(source: str, path: Path, fleet: Fleet, days: int) -> int:
    """`days` days of `source` written one after another into `path`; the records."""
    if source == "slurm-json":
        return write_sacct_json(path, SLURM_JOBS_PER_GPU_DAY * len(fleet.nodes) * 8 * days)
    dates = [FIRST_DAY + dt.timedelta(days=offset) for offset in range(days)]
    if source == "kubernetes-list":
        return write_pod_list(path, fleet, dates)
    if source == "exposition":
        with path.open("w", encoding="utf-8") as out:
            return sum(write_dcgm_scrapes(out, fleet, day) for day in dates)
    records = 0
    with path.open("wb") as out:
        for offset, day in enumerate(dates):
            part = path.with_suffix(f".day{offset}")
            if source == "kubernetes":
                records += write_watch_day(part, fleet, day)
            else:
                records += write_requests_day(part, day_requests(fleet, day))
            with part.open("rb") as piece:
                shutil.copyfileobj(piece, out)
            part.unlink()
    return records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gpus", type=int, default=4096)
    parser.add_argument("--days", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--sources", nargs="+", default=["kubernetes", "requests"])
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--results", type=Path, default=Path("benchmarks/results.md"))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    fleet = make_fleet(args.gpus, 8.0, args.seed)
    commit, machine = run_identity()
    gpuledger = str(Path(sys.executable).parent / "gpuledger")
    rows = []
    for source in args.sources:
        for days in args.days:
            folder = args.workdir / f"{source}-{days}"
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            command, suffix = FILE_SOURCES.get(source, (source, ".jsonl"))
            path = folder / f"{source}-{days}d{suffix}"
            write_file(source, path, fleet, days)
            home = folder / "home"
            argv_ = [gpuledger, "--home", str(home), "ingest", command, "--file", str(path)]
            if source == "kubernetes-list":  # listed once the days were over
                listed = FIRST_DAY + dt.timedelta(days=days)
                argv_ += ["--extracted-at", listed.isoformat()]
            step = run_ingest(f"{source} {days} d", argv_, folder / "ingest.log", home, "records")
            size = path.stat().st_size / 2**20
            row = (
                f"| {dt.date.today()} | {commit} | {source} | {days} | {size:,.0f} | "
                f"{step.records:,} | {step.seconds:.1f} | {step.rate:,.0f} | "
                f"{step.peak_rss_mib:,.0f} | {step.peak_rss_mib / size:.2f} | {machine} |"
            )
            print(row, flush=True)
            rows.append(row)
            shutil.rmtree(folder)
    text = args.results.read_text() if args.results.exists() else ""
    lines = text.splitlines()
    if HEADER not in lines:
        lines += ["", *INTRO.splitlines()]
    for row in rows:
        insert_row(lines, HEADER, row)
    args.results.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
