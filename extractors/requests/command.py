"""`gpuledger ingest requests`: model gateway request logs (JSON Lines)."""

from __future__ import annotations

import argparse
from pathlib import Path

from extractors.landing import LandingReport
from extractors.requests.client import ingest_file

HELP = "model gateway request logs: JSONL, one request per line"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--file", nargs="+", required=True, type=Path, metavar="PATH")


def ingest(home: Path, args: argparse.Namespace) -> list[LandingReport]:
    return [ingest_file(home, path) for path in args.file]
