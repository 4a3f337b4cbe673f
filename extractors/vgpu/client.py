"""vGPU host evidence into the landing zone: recorded JSONL files, or the host sampled live."""

from __future__ import annotations

from pathlib import Path

from extractors.filebatch import DEFAULT_READ, ReadOptions
from extractors.landing import LandingReport
from extractors.nvmlcalls import nvml_session
from extractors.sampling import LiveOptions, LiveSource, run_live
from extractors.textfile import land_pieces
from extractors.vgpu.parse import parse_vgpu_jsonl, vgpu_stream
from extractors.vgpu.records import RAW_TABLES
from extractors.vgpu.sampler import VgpuSampler

SOURCE = LiveSource(name="vgpu", parse=parse_vgpu_jsonl, row_types=RAW_TABLES)


def ingest_file(home: Path, path: Path, read: ReadOptions = DEFAULT_READ) -> LandingReport:
    """Land a JSONL file the vGPU host sampler wrote."""
    return land_pieces(
        home, path, source=SOURCE.name, parser=vgpu_stream(), row_types=RAW_TABLES, read=read
    )


def ingest_live(home: Path, options: LiveOptions) -> list[LandingReport]:
    """Poll this hypervisor's GPUs every `options.interval_seconds` and land the records."""
    with nvml_session():
        sampler = VgpuSampler(host=options.host, interval_seconds=options.interval_seconds)
        return run_live(home, SOURCE, sampler, options)
