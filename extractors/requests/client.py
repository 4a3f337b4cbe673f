"""Gateway request logs into the landing zone."""

from __future__ import annotations

from pathlib import Path

from extractors.filebatch import DEFAULT_READ, ReadOptions, land_file
from extractors.landing import LandingReport
from extractors.requests.parse import parse_requests_jsonl
from extractors.requests.records import RAW_TABLES


def ingest_file(home: Path, path: Path, read: ReadOptions = DEFAULT_READ) -> LandingReport:
    return land_file(
        home, path, source="requests", parse=parse_requests_jsonl, row_types=RAW_TABLES, read=read
    )
