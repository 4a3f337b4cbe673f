"""Gateway request logs into the landing zone."""

from __future__ import annotations

from pathlib import Path

from extractors.filebatch import DEFAULT_READ, ReadOptions
from extractors.landing import LandingReport
from extractors.requests.parse import requests_stream
from extractors.requests.records import RAW_TABLES
from extractors.textfile import land_pieces


def ingest_file(home: Path, path: Path, read: ReadOptions = DEFAULT_READ) -> LandingReport:
    return land_pieces(
        home, path, source="requests", parser=requests_stream(), row_types=RAW_TABLES, read=read
    )
