"""`gpuledger ingest nvml`: sample the node's GPUs live, or land the sampler's JSONL files."""

from __future__ import annotations

import argparse
from pathlib import Path

from extractors.landing import LandingReport
from extractors.nvml.client import ingest_file, ingest_live
from extractors.sampling import add_live_arguments, check_file_mode, live_options

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


def ingest(home: Path, args: argparse.Namespace) -> list[LandingReport]:
    if args.file:
        check_file_mode(args)
        return [ingest_file(home, path) for path in args.file]
    return ingest_live(home, live_options(args), proc_root=args.proc_root)
