"""Validation records: whether a landed batch passed its expectation suites, and the UTC time
span its evidence covers (the late-data rule reads that span).

One Parquet file per validated batch under `<home>/validations/batches/<batch_id>.parquet`,
read by dbt as source `ledger.batch_validations`; a zero-row schema file lets dbt read the
source before any batch was validated. The suites themselves run in
orchestration/validation.py.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass
from pathlib import Path

import pyarrow as pa

from extractors.rawstore import EMPTY_FILE, batch_files, write_parquet_atomic

VALIDATION_SCHEMA = pa.schema(
    [
        ("batch_id", pa.string()),
        ("source", pa.string()),
        ("outcome", pa.string()),
        ("validated_at", pa.timestamp("us")),
        ("first_evidence_at", pa.timestamp("us")),
        ("last_evidence_at", pa.timestamp("us")),
        ("failed_expectations", pa.string()),
        ("results_path", pa.string()),
    ]
)
VALIDATION_PASSED = "passed"
VALIDATION_QUARANTINED = "quarantined"


@dataclass(frozen=True)
class BatchValidation:
    """The outcome of a landed batch's expectation suites and its evidence time span."""

    batch_id: str
    source: str
    outcome: str
    validated_at: dt.datetime
    first_evidence_at: dt.datetime | None
    last_evidence_at: dt.datetime | None
    failed_expectations: str
    results_path: str


def validations_dir(home: Path) -> Path:
    return home / "validations"


def _records_dir(home: Path) -> Path:
    return validations_dir(home) / "batches"


def ensure_validation_layout(home: Path) -> None:
    """A zero-row record file, so dbt can read the source before any batch was validated."""
    folder = _records_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    empty = folder / EMPTY_FILE
    if not empty.exists():
        write_parquet_atomic(pa.Table.from_pylist([], schema=VALIDATION_SCHEMA), empty)


def write_validation(home: Path, record: BatchValidation) -> None:
    ensure_validation_layout(home)
    write_parquet_atomic(
        pa.Table.from_pylist([asdict(record)], schema=VALIDATION_SCHEMA),
        _records_dir(home) / f"{record.batch_id}.parquet",
    )


def validated_batch_ids(home: Path) -> set[str]:
    folder = _records_dir(home)
    if not folder.exists():
        return set()
    return {p.stem for p in batch_files(folder)}
