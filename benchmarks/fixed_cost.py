"""Benchmark: the fixed cost of a build, what `gpuledger build` costs when there is next to
nothing to compute (the demo's home, 128 GPUs, after its close, with nothing new landed).

    python -m benchmarks.fixed_cost [--builds 3] [--workdir DIR] [--results FILE]

`gpuledger demo` makes the home (its close published), then `gpuledger build` runs --builds
times, each timed wall-clock with its peak RSS (`benchmarks.measure`, as every step of
`benchmarks.close_benchmark`). Each build's dbt figures come from its run_results.json: dbt's
own elapsed time, the nodes it ran, and the summed time of its data tests. Whatever the fleet,
a daily run pays at least this on top of landing its day and computing it: the row goes to
--results (benchmarks/results.md, "The fixed cost of a build") with the median build.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from benchmarks.results import insert_row, run_identity
from benchmarks.steps import StepFailed, run_command

HEADER = (
    "| date | commit | builds | build s (median) | min s | max s | dbt elapsed s | dbt nodes "
    "| data tests | tests' node s | peak RSS MiB | machine |"
)
SECTION = "## The fixed cost of a build"


@dataclass(frozen=True)
class Build:
    seconds: float
    peak_rss_mib: float
    dbt_elapsed: float
    nodes: int
    tests: int
    test_seconds: float


def dbt_figures(home: Path) -> tuple[float, int, int, float]:
    """(dbt's elapsed s, nodes, data tests, their summed s) of the home's last dbt run."""
    results = json.loads((home / "dbt" / "target" / "run_results.json").read_text())
    tests = [r for r in results["results"] if r["unique_id"].startswith("test.")]
    return (
        results["elapsed_time"],
        len(results["results"]),
        len(tests),
        sum(r["execution_time"] for r in tests),
    )


def measure(workdir: Path, builds: int) -> list[Build]:
    home = workdir / "home"
    if workdir.exists():
        shutil.rmtree(workdir)
    cli = [str(Path(sys.executable).with_name("gpuledger")), "--home", str(home)]
    logs = workdir / "logs"
    demo = run_command("demo", [*cli, "demo"], logs / "demo.log")
    print(f"demo (ingest, build, close): {demo.seconds:.1f} s", flush=True)
    measured = []
    for number in range(1, builds + 1):
        step = run_command(f"build {number}", [*cli, "build"], logs / f"build-{number}.log")
        build = Build(step.seconds, step.peak_rss_mib, *dbt_figures(home))
        print(
            f"build {number}: {build.seconds:.1f} s, dbt {build.dbt_elapsed:.1f} s over "
            f"{build.nodes} nodes ({build.tests} data tests, {build.test_seconds:.1f} s)",
            flush=True,
        )
        measured.append(build)
    return measured


def append_row(results: Path, builds: list[Build], commit: str, machine: str) -> str:
    """Add the row of the median build (the lower of two) to the section's table of
    `results` (the section added at the end when missing); returns it."""
    ordered = sorted(builds, key=lambda b: b.seconds)
    median = ordered[(len(ordered) - 1) // 2]
    row = (
        f"| {dt.date.today()} | {commit} | {len(builds)} | {median.seconds:.1f} "
        f"| {ordered[0].seconds:.1f} | {ordered[-1].seconds:.1f} | {median.dbt_elapsed:.1f} "
        f"| {median.nodes} | {median.tests} | {median.test_seconds:.1f} "
        f"| {max(b.peak_rss_mib for b in builds):,.0f} | {machine} |"
    )
    text = results.read_text() if results.exists() else "# gpuledger benchmark\n"
    if SECTION not in text:
        text = text.rstrip("\n") + f"\n\n{SECTION}\n\n{HEADER}\n|{'---|' * 12}\n"
    lines = text.splitlines()
    insert_row(lines, HEADER, row)
    results.write_text("\n".join(lines) + "\n")
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--builds", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/gpuledger-bench-fixed"))
    parser.add_argument("--results", type=Path, default=Path(__file__).with_name("results.md"))
    args = parser.parse_args()
    if args.builds < 1:
        parser.error("--builds: at least 1")
    try:
        builds = measure(args.workdir, args.builds)
    except StepFailed as err:
        print(f"benchmark failed: {err}", file=sys.stderr)
        return 1
    print(append_row(args.results, builds, *run_identity()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
