"""`gpuledger ingest slurm`: sacct output files, or sacct itself window by window (`--live`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from extractors.commands import land_each
from extractors.filebatch import add_read_arguments, iso_instant, read_flags_given, read_options
from extractors.landing import LandingReport
from extractors.slurm.client import SlurmLiveError, ingest_file, ingest_live
from extractors.textfile import SurveysAhead

HELP = "Slurm accounting: sacct --parsable2 or --json output, or live from sacct"


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
        "--cluster",
        help="cluster to ask sacct for (live); for files, the name of the jobs' cluster when "
        "the output has no Cluster column (required then)",
    )
    parser.add_argument(
        "--delimiter",
        metavar="TEXT",
        help="file mode: sacct's --delimiter (default: the header's, else |)",
    )
    parser.add_argument(
        "--covers-from",
        type=iso_instant,
        metavar="ISO",
        help="file mode: the sacct -S the output was extracted with; its coverage starts "
        "there (default: at its earliest record)",
    )
    add_read_arguments(
        parser,
        extracted_at_help="when sacct ran (default: the latest Start + Elapsed of a running "
        "job, else the latest time in the output)",
    )
    live = parser.add_argument_group("live mode")
    live.add_argument(
        "--since",
        type=iso_instant,
        help="start (ISO 8601, zone-less = UTC); default: the watermark",
    )
    live.add_argument(
        "--until", type=iso_instant, help="end (ISO 8601, zone-less = UTC); default: now"
    )
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
        if args.delimiter == "":
            raise SlurmLiveError("--delimiter: give the text sacct separates fields with")
        timezone = args.timezone or "UTC"
        read = read_options(args)
        with SurveysAhead(args.file) as surveys:
            return land_each(
                args.file,
                lambda path: ingest_file(
                    home,
                    path,
                    cluster=args.cluster,
                    timezone=timezone,
                    delimiter=args.delimiter,
                    read=read,
                    surveyed=surveys,
                ),
            )
    file_only = read_flags_given(args) + [
        flag
        for flag, value in (("--delimiter", args.delimiter), ("--covers-from", args.covers_from))
        if value is not None
    ]
    if args.timezone is not None:
        file_only.insert(0, "--timezone")
    if file_only:
        raise SlurmLiveError(
            f"{', '.join(file_only)}: only with --file (live mode asks sacct for UTC text "
            "delimited by | and dates each window by the clock)"
        )
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
