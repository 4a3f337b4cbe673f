"""`gpuledger ingest nvml`: sample the node's GPUs live, or land the sampler's JSONL files."""

from __future__ import annotations

import argparse
from pathlib import Path

from extractors.commands import land_each
from extractors.filebatch import add_read_arguments, read_options
from extractors.landing import LandingReport
from extractors.nvml.client import ingest_file, ingest_live
from extractors.sampling import add_live_arguments, check_file_mode, check_live_mode, live_options

HELP = "NVML device samples and GPU processes: --live on a GPU node, or the sampler's JSONL"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_live_arguments(parser)
    parser.add_argument(
        "--proc-root",
        metavar="DIR",
        type=Path,
        default=Path("/proc"),
        help="where /proc/<pid>/cgroup is read (the host's /proc when in a container)",
    )
    add_read_arguments(
        parser, extracted_at_help="when the file was written (default: its latest sample)"
    )


def ingest(home: Path, args: argparse.Namespace) -> list[LandingReport]:
    if args.file:
        check_file_mode(args)
        read = read_options(args)
        return land_each(args.file, lambda path: ingest_file(home, path, read))
    check_live_mode(args)
    return ingest_live(home, live_options(args), proc_root=args.proc_root)
