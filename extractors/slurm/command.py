"""`gpuledger ingest slurm`: sacct output files."""

from __future__ import annotations

import argparse
from pathlib import Path

from extractors.landing import LandingReport
from extractors.slurm.client import ingest_file

HELP = "Slurm accounting: sacct --parsable2 or --json output"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--file", nargs="+", required=True, type=Path, metavar="PATH")
    parser.add_argument("--timezone", default="UTC", help="zone of zone-less times (default UTC)")
    parser.add_argument("--cluster", help="cluster name when the output has none")


def ingest(home: Path, args: argparse.Namespace) -> list[LandingReport]:
    return [ingest_file(home, p, cluster=args.cluster, timezone=args.timezone) for p in args.file]
