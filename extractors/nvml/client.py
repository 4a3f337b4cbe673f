"""NVML evidence into the landing zone: recorded JSONL files, or the node's GPUs sampled live."""

from __future__ import annotations

from pathlib import Path

from extractors.filebatch import DEFAULT_READ, ReadOptions
from extractors.landing import LandingReport
from extractors.nvml.parse import nvml_stream, parse_nvml_jsonl
from extractors.nvml.records import RAW_TABLES
from extractors.nvml.sampler import NvmlSampler
from extractors.nvmlcalls import nvml_session
from extractors.sampling import LiveOptions, LiveSource, run_live
from extractors.textfile import land_pieces

SOURCE = LiveSource(name="nvml", parse=parse_nvml_jsonl, row_types=RAW_TABLES)


def ingest_file(home: Path, path: Path, read: ReadOptions = DEFAULT_READ) -> LandingReport:
    """Land a JSONL file the sampler wrote (`--output`, or a copy of a spool chunk)."""
    return land_pieces(
        home, path, source=SOURCE.name, parser=nvml_stream(), row_types=RAW_TABLES, read=read
    )


def ingest_live(home: Path, options: LiveOptions, *, proc_root: Path) -> list[LandingReport]:
    """Sample this node's GPUs every `options.interval_seconds` and land the records."""
    with nvml_session():
        sampler = NvmlSampler(
            host=options.host, proc_root=proc_root, interval_seconds=options.interval_seconds
        )
        return run_live(home, SOURCE, sampler, options)
