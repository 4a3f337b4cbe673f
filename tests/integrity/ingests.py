"""What the integrity tests read back after an ingest: a file's batch manifest, its counts
(asserting nothing was lost: read = landed + quarantined), its rows and its quarantine."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from extractors.rawstore import batch_files


def manifest_of(home: Path, file: Path) -> dict:
    """The manifest of the batch that landed `file` (exactly one)."""
    manifests = [pq.read_table(p).to_pylist()[0] for p in batch_files(home / "raw" / "batches")]
    (manifest,) = [m for m in manifests if m["file"] == str(file)]
    return manifest


def counts_of(home: Path, file: Path) -> tuple[int, int, int]:
    """(read, landed, quarantined) of `file`'s batch; read = landed + quarantined always."""
    manifest = manifest_of(home, file)
    read, landed, held = (
        manifest["records_read"],
        manifest["records_landed"],
        manifest["records_quarantined"],
    )
    assert read == landed + held, f"{file}: {read} read, {landed} landed, {held} quarantined"
    return read, landed, held


def rows_of(home: Path, table: str, file: Path) -> list[dict]:
    """The rows `file`'s batch landed in raw `table`."""
    path = home / "raw" / table / f"{manifest_of(home, file)['batch_id']}.parquet"
    return pq.read_table(path).to_pylist() if path.exists() else []


def quarantine_of(home: Path, file: Path) -> list[dict]:
    return rows_of(home, "quarantine", file)


def batches_of(home: Path) -> list[dict]:
    return [pq.read_table(p).to_pylist()[0] for p in batch_files(home / "raw" / "batches")]
