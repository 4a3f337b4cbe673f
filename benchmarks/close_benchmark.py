"""Benchmark: a fleet month through the real file formats and `gpuledger ingest`, its close,
then one more day and the daily build; against the floor of one DuckDB pass.

    python -m benchmarks.close_benchmark --gpus 4096 --days 31 [--jobs N] [--months 2]

The fleet (`benchmarks.fleet`) is `gpus / 8` nodes of 8 H100s, three quarters Slurm, a
quarter Kubernetes (one lane serving the shared model endpoint). Its files
(`benchmarks.formats`, streamed to disk, the same bytes for the same --seed): the CMDB
inventory, a namespaces and nodes List at the pod watch start, then a day at a time: sacct
--parsable2 text with steps, the pod watch events, dcgm-exporter query_range JSON at 60 s of
every GPU (GR engine activity, framebuffer, power) and the model server's vLLM counters, and
the gateway's request log. Every step is the CLI a user runs, in a subprocess, timed with its
peak RSS:

0. `gpuledger ingest --help`: what every command pays before it reads a byte;
1. `gpuledger ingest` of each source for days 1..--days of 2026-10 (read at the month's end);
2. `gpuledger close --period 2026-10`;
3. the floor: one DuckDB pass rolling the landed DCGM points up by GPU, metric and hour;
4. the daily run: 2026-11-01's files ingested (read the next midnight) and `gpuledger build`;
   its sacct reaches back into October (the jobs running at midnight), so the build computes
   the closed month again (period_scope): the dearest day of a month;
5. the next day's run, 2026-11-02 the same way: its batches reach back into 2026-11-01 only,
   so the build keeps October, as the month's other days do; printed against the close;
6. with --months 2, the rest of 2026-11 ingested and `gpuledger close --period 2026-11`,
   then 2026-12-01 ingested and `gpuledger build`: a daily run with two months of history,
   printed against the first (October, closed and settled, is kept: period_scope).

Every ingest must land all it reads (nothing quarantined). A row goes to --results
(benchmarks/results.md): the rates, peaks and ratios the targets are stated in, and which
targets it meets (they are reported, not asserted). With fewer days than the month, sources
that keep no watch (sacct, Prometheus, the gateway log) are read at the month's end and
cover it; the pod watch covers only its days, so the policy expects it only of whole months.
"""

from __future__ import annotations

import argparse
import calendar
import datetime as dt
import shutil
import sys
import time
from pathlib import Path

from benchmarks.evidence import Files, write_days
from benchmarks.fleet import FIRST_DAY, Fleet, make_fleet
from benchmarks.formats.inventory import write_inventory
from benchmarks.formats.kubernetes import CLUSTER, write_watch_start
from benchmarks.policy import write_policy
from benchmarks.results import Result, append_row, run_identity
from benchmarks.steps import Step, StepFailed, run_command, run_ingest
from gpuledger.core import incremental, period_scope

UNITS = {"slurm": "lines", "prometheus": "points", "kubernetes": "events", "requests": "lines"}


def month_days(month: dt.datetime, days: int) -> list[dt.datetime]:
    """The first `days` days of `month` (at most the whole month)."""
    count = min(days, calendar.monthrange(month.year, month.month)[1])
    return [month + dt.timedelta(days=n) for n in range(count)]


def next_month(month: dt.datetime) -> dt.datetime:
    return (month + dt.timedelta(days=32)).replace(day=1)


class Bench:
    """The run's home, policy and CLI, and every step measured so far."""

    def __init__(self, workdir: Path, policy: Path, discard_files: bool = False) -> None:
        self.workdir = workdir
        self.discard_files = discard_files
        self.home = workdir / "home"
        self.policy = policy
        self.cli = [str(Path(sys.executable).with_name("gpuledger")), "--home", str(self.home)]
        self.cli += ["--policy", str(policy)]
        self.steps: list[Step] = []

    def _log(self, name: str) -> Path:
        return self.workdir / "logs" / f"{len(self.steps):02d}-{name.replace(' ', '-')}.log"

    def record(self, step: Step) -> Step:
        self.steps.append(step)
        print(step.line(), flush=True)
        return step

    def ingest(self, source: str, paths: list[Path], extracted_at: dt.datetime | None) -> Step:
        argv = [*self.cli, "ingest", source, "--file", *map(str, paths)]
        if source == "kubernetes":
            argv += ["--cluster", CLUSTER]
        if extracted_at is not None:
            argv += ["--extracted-at", extracted_at.isoformat()]
        name = f"ingest {source}"
        step = run_ingest(name, argv, self._log(name), self.home, UNITS.get(source, "records"))
        if step.landed != step.records or step.quarantined:
            raise StepFailed(
                f"{name}: read {step.records:,}, landed {step.landed:,}, quarantined "
                f"{step.quarantined:,} (log: {self._log(name)})"
            )
        return self.record(step)

    def ingest_days(self, files: Files, read_at: dt.datetime) -> list[Step]:
        """Each source's files of the days, in the order a deployment lands them. The pod
        watch is dated by its events; the others are read at `read_at`. With --discard-files
        the files are deleted once landed (a fleet month's JSON is about 14 GB)."""
        order = ("slurm", "kubernetes", "prometheus", "requests")
        steps = [
            self.ingest(source, files.paths[source], None if source == "kubernetes" else read_at)
            for source in order
            if source in files.paths
        ]
        if self.discard_files:
            for path in (p for paths in files.paths.values() for p in paths):
                path.unlink()
        return steps

    def command(self, name: str, *args: str) -> Step:
        """A `gpuledger` command; its last line (the close's outcome) is shown."""
        log = self._log(name)
        step = self.record(run_command(name, [*self.cli, *args], log))
        print(f"    {log.read_text().strip().splitlines()[-1]}", flush=True)
        return step

    def floor(self) -> Step:
        argv = [sys.executable, "-m", "benchmarks.floor", str(self.home)]
        return self.record(run_command("floor (DuckDB hourly roll-up)", argv, self._log("floor")))

    @staticmethod
    def generate(folder: Path, fleet: Fleet, days: list[dt.datetime]) -> Files:
        started = time.perf_counter()
        files = write_days(folder, fleet, days)
        size = sum(p.stat().st_size for paths in files.paths.values() for p in paths)
        print(
            f"{'generate ' + days[0].strftime('%Y-%m-%d'):<34} "
            f"{time.perf_counter() - started:8.1f} s  {len(days)} days, "
            f"{size / 2**20:,.0f} MiB: "
            + ", ".join(f"{s} {n:,}" for s, n in files.records.items()),
            flush=True,
        )
        return files


def run(args: argparse.Namespace) -> Result:
    first, second = FIRST_DAY, next_month(FIRST_DAY)
    months = [month_days(first, args.days), month_days(second, args.days)][: args.months]
    fleet = make_fleet(args.gpus, args.jobs / (args.gpus * len(months[0])), args.seed)
    shutil.rmtree(args.workdir, ignore_errors=True)
    whole_months = all(len(d) == calendar.monthrange(d[0].year, d[0].month)[1] for d in months)
    expected = ["slurm", "prometheus"]
    if fleet.kubernetes_nodes:
        expected += ["requests", "kubernetes"] if whole_months else ["requests"]
    policy = write_policy(args.workdir / "policy", args.gpus, expected)
    bench = Bench(args.workdir, policy, args.discard_files)
    files_dir = args.workdir / "files"
    files_dir.mkdir(parents=True)
    startup = bench.record(
        run_command("CLI start-up (ingest --help)", [*bench.cli, "ingest", "--help"],
                    bench.workdir / "logs" / "startup.log")
    )  # fmt: skip
    inventory = files_dir / "inventory.csv"
    write_inventory(inventory, fleet)
    bench.ingest("inventory", [inventory], first)
    if fleet.kubernetes_nodes:
        listing = files_dir / "kubectl-get-namespaces-nodes-watch-start.json"
        write_watch_start(listing, fleet)
        bench.ingest("kubernetes", [listing], first)
    month = bench.generate(files_dir / "month-1", fleet, months[0])
    ingests = bench.ingest_days(month, second)
    close = bench.command("close 2026-10", "close", "--period", "2026-10", "--approver", "bench")
    floor = bench.floor()
    day = bench.generate(files_dir / "daily", fleet, [second])
    daily = bench.ingest_days(day, second + dt.timedelta(days=1))
    daily.append(bench.command("daily build", "build"))
    following = second + dt.timedelta(days=1)
    next_day = bench.generate(files_dir / "daily-2", fleet, [following])
    steps = bench.ingest_days(next_day, following + dt.timedelta(days=1))
    # what the build will keep, as its runner finds it (orchestration.warehouse_assets)
    landed = incremental.manifested_batches(bench.home)
    kept = period_scope.describe(period_scope.frozen(bench.home, landed))
    steps.append(bench.command("next day's build", "build"))
    seconds = sum(step.seconds for step in steps)
    print(
        f"the next day's run ({following:%Y-%m-%d}; {kept}): {seconds:.1f} s, "
        f"{seconds / close.seconds:.2f} of the close",
        flush=True,
    )
    second_close = None
    if args.months == 2:
        rest = bench.generate(files_dir / "month-2", fleet, months[1][2:])
        bench.ingest_days(rest, next_month(second))
        second_close = bench.command(
            "close 2026-11", "close", "--period", "2026-11", "--approver", "bench"
        )
        # a daily run with two months of history: October's evidence is settled (November's
        # close published its corrections), so the build keeps October (period_scope)
        third = next_month(second)
        later = bench.generate(files_dir / "daily-3", fleet, [third])
        steps = bench.ingest_days(later, third + dt.timedelta(days=1))
        steps.append(bench.command("daily build after the second close", "build"))
        seconds = sum(step.seconds for step in steps)
        first_daily = sum(step.seconds for step in daily)
        print(
            f"daily run after the second close: {seconds:.1f} s, "
            f"{seconds / first_daily:.2f} of the first daily run ({first_daily:.1f} s)",
            flush=True,
        )
    by_source = {step.name.removeprefix("ingest "): step for step in ingests}
    return Result(
        gpus=args.gpus,
        days=len(months[0]),
        startup_seconds=startup.seconds,
        runs=month.records["slurm"] // 3 + month.records.get("kubernetes", 0) // 3,
        prometheus=by_source["prometheus"],
        sacct=by_source["slurm"],
        ingest_peak_mib=max(s.peak_rss_mib for s in bench.steps if s.name.startswith("ingest")),
        close=close,
        floor=floor,
        peak_mib=max(s.peak_rss_mib for s in bench.steps),
        daily_seconds=sum(s.seconds for s in daily),
        second_close=second_close,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, default=512, help="a multiple of 8 (default 512)")
    parser.add_argument("--days", type=int, default=7, help="days of each month (default 7)")
    parser.add_argument("--jobs", type=int, help="Slurm jobs and pods of the first month "
                        "(default 8 per GPU a day)")  # fmt: skip
    parser.add_argument("--months", type=int, choices=(1, 2), default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--discard-files", action="store_true",
                        help="delete each batch of generated files once landed")  # fmt: skip
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/gpuledger-bench"))
    parser.add_argument("--results", type=Path, default=Path(__file__).with_name("results.md"))
    args = parser.parse_args()
    if args.days < 1 or (args.months == 2 and args.days < 3):
        parser.error("--days: at least 1 (3 with --months 2: its days 1 and 2 are the daily runs)")
    args.jobs = args.jobs or 8 * args.gpus * args.days
    try:
        result = run(args)
    except (StepFailed, ValueError) as err:
        print(f"benchmark failed: {err}", file=sys.stderr)
        return 1
    print(append_row(args.results, result, dt.date.today(), *run_identity()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
