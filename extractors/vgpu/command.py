"""`gpuledger ingest vgpu`: poll a vGPU host (hypervisor) live, or land the sampler's JSONL."""

from __future__ import annotations

import argparse
from pathlib import Path

from extractors.landing import LandingReport
from extractors.sampling import add_live_arguments, check_file_mode, live_options
from extractors.vgpu.client import ingest_file, ingest_live

HELP = "vGPU host view (hypervisor NVML): --live on the host, or the sampler's JSONL"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_live_arguments(parser)


def ingest(home: Path, args: argparse.Namespace) -> list[LandingReport]:
    if args.file:
        check_file_mode(args)
        return [ingest_file(home, path) for path in args.file]
    return ingest_live(home, live_options(args))
