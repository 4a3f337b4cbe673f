"""Slurm accounting into the landing zone: from sacct output files."""

from __future__ import annotations

from pathlib import Path

from extractors.filebatch import land_file
from extractors.landing import LandingReport
from extractors.slurm.parse import parse_sacct_json, parse_sacct_text
from extractors.slurm.records import RAW_TABLES


def ingest_file(
    home: Path, path: Path, *, cluster: str | None = None, timezone: str = "UTC"
) -> LandingReport:
    """Land a `sacct --parsable2` or `sacct --json` file (detected by its first character)."""

    def parse(text: str):
        if text.lstrip().startswith("{"):
            return parse_sacct_json(text, cluster=cluster)
        return parse_sacct_text(text, cluster=cluster, timezone=timezone)

    return land_file(
        home,
        path,
        source="slurm",
        parse=parse,
        row_types=RAW_TABLES,
        options=f"cluster={cluster or ''};timezone={timezone}",
    )
