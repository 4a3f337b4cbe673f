"""`gpuledger ingest inventory`: the CMDB CSV export of the GPUs."""

from __future__ import annotations

import argparse
from pathlib import Path

from extractors.commands import land_each
from extractors.filebatch import add_read_arguments, read_options
from extractors.inventory.client import ingest_file
from extractors.landing import LandingReport

HELP = "the approved GPU inventory: a CMDB CSV export"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--file", nargs="+", required=True, type=Path, metavar="PATH")
    add_read_arguments(
        parser, extracted_at_help="when the CMDB was exported (default: the latest time in it)"
    )


def ingest(home: Path, args: argparse.Namespace) -> list[LandingReport]:
    read = read_options(args)
    return land_each(args.file, lambda path: ingest_file(home, path, read))
