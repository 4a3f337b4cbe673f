"""`gpuledger ingest requests`: model gateway request logs (JSON Lines)."""

from __future__ import annotations

import argparse
from pathlib import Path

from extractors.commands import land_each
from extractors.filebatch import add_read_arguments, read_options
from extractors.landing import LandingReport
from extractors.requests.client import ingest_file

HELP = "model gateway request logs: JSONL, one request per line"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--file", nargs="+", required=True, type=Path, metavar="PATH")
    add_read_arguments(
        parser, extracted_at_help="when the log was read (default: its latest request)"
    )


def ingest(home: Path, args: argparse.Namespace) -> list[LandingReport]:
    read = read_options(args)
    return land_each(args.file, lambda path: ingest_file(home, path, read))
