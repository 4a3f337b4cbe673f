"""The approved inventory (CMDB CSV export) into the landing zone."""

from __future__ import annotations

from pathlib import Path

from extractors.filebatch import DEFAULT_READ, ReadOptions, land_file
from extractors.inventory.parse import csv_field_at, parse_inventory_csv
from extractors.inventory.records import RAW_TABLES
from extractors.landing import LandingReport


def ingest_file(home: Path, path: Path, read: ReadOptions = DEFAULT_READ) -> LandingReport:
    return land_file(
        home,
        path,
        source="inventory",
        parse=parse_inventory_csv,
        row_types=RAW_TABLES,
        read=read,
        field_at=csv_field_at,
    )
