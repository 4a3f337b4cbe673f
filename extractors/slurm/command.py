"""`gpuledger ingest slurm`: sacct output files, or sacct itself window by window (`--live`)."""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path

from extractors.landing import LandingReport
from extractors.slurm.client import SlurmLiveError, ingest_file, ingest_live
from extractors.timeparse import parse_timestamp

HELP = "Slurm accounting: sacct --parsable2 or --json output, or live from sacct"


def _utc(value: str) -> dt.datetime:
    try:
        return parse_timestamp(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not an ISO 8601 time (2026-11-01 or 2026-11-01T06:00:00Z)"
        ) from None


def _hours(value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number of hours >= 1")
    return int(value)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--file", nargs="+", type=Path, metavar="PATH")
    mode.add_argument(
        "--live", action="store_true", help="run sacct window by window (needs --cluster)"
    )
    parser.add_argument(
        "--timezone", help="file mode: zone of zone-less times (default UTC; live is UTC)"
    )
    parser.add_argument(
        "--cluster", help="cluster to ask sacct for (live), or name when the output has none"
    )
    live = parser.add_argument_group("live mode")
    live.add_argument(
        "--since", type=_utc, help="start (ISO 8601, zone-less = UTC); default: the watermark"
    )
    live.add_argument("--until", type=_utc, help="end (ISO 8601, zone-less = UTC); default: now")
    live.add_argument("--window-hours", type=_hours, metavar="N", help="window size (default 24)")
    live.add_argument("--sacct", metavar="PATH", help="the sacct executable (default: on PATH)")


def ingest(home: Path, args: argparse.Namespace) -> list[LandingReport]:
    if not args.live:
        live_only = [
            flag
            for flag, value in (
                ("--since", args.since),
                ("--until", args.until),
                ("--window-hours", args.window_hours),
                ("--sacct", args.sacct),
            )
            if value is not None
        ]
        if live_only:
            raise SlurmLiveError(f"{', '.join(live_only)}: only with --live")
        timezone = args.timezone or "UTC"
        return [ingest_file(home, p, cluster=args.cluster, timezone=timezone) for p in args.file]
    if args.timezone is not None:
        raise SlurmLiveError("--timezone: only with --file (live mode asks sacct for UTC)")
    if not args.cluster:
        raise SlurmLiveError("--live needs --cluster NAME (the watermark is kept per cluster)")
    return ingest_live(
        home,
        cluster=args.cluster,
        since=args.since,
        until=args.until,
        window_hours=args.window_hours or 24,
        sacct=args.sacct or "sacct",
    )
