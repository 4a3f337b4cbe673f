"""`gpuledger ingest inventory`: the CMDB CSV export of the GPUs."""

from __future__ import annotations

import argparse
from pathlib import Path

from extractors.inventory.client import ingest_file
from extractors.landing import LandingReport

HELP = "the approved GPU inventory: a CMDB CSV export"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--file", nargs="+", required=True, type=Path, metavar="PATH")


def ingest(home: Path, args: argparse.Namespace) -> list[LandingReport]:
    return [ingest_file(home, p) for p in args.file]
