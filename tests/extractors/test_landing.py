"""The one landing writer: idempotent batches, quarantine with file/line/reason, counts."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from extractors.filebatch import SourceFileError
from extractors.inventory.client import ingest_file as ingest_inventory
from extractors.inventory.parse import InventoryFormatError, parse_inventory_csv
from extractors.rawstore import EMPTY_FILE, batch_manifest, ensure_layout, raw_tables
from extractors.slurm.client import ingest_file as ingest_slurm
from tests.conftest import FIXTURES, run_cli

SACCT_2205 = FIXTURES / "real" / "slurm" / "slurm22.05_sacct_parsable2.txt"
MILA = FIXTURES / "real" / "slurm" / "mila_clockwork_sacct_parsable_and_fixedwidth.txt"


def _rows(home: Path, table: str) -> list[dict]:
    rows = []
    for path in sorted((home / "raw" / table).glob("*.parquet")):
        rows.extend(pq.read_table(path).to_pylist())
    return rows


def test_same_content_lands_once(home: Path) -> None:
    first = ingest_slurm(home, SACCT_2205, cluster="probe")
    second = ingest_slurm(home, SACCT_2205, cluster="probe")
    assert (first.records_read, first.records_landed, first.records_quarantined) == (26, 26, 0)
    assert not first.already_landed and second.already_landed
    assert second.batch_id == first.batch_id
    assert "already landed" in second.summary()
    assert len(_rows(home, "slurm_jobs")) == 8
    assert len(_rows(home, "slurm_steps")) == 18
    assert [b.batch_id for b in batch_manifest(home)] == [first.batch_id]


def test_parse_options_are_part_of_the_batch_identity(home: Path) -> None:
    utc = ingest_slurm(home, SACCT_2205, cluster="probe", timezone="UTC")
    berlin = ingest_slurm(home, SACCT_2205, cluster="probe", timezone="Europe/Berlin")
    assert utc.batch_id != berlin.batch_id
    assert not berlin.already_landed


def test_every_row_carries_its_batch_and_line(home: Path) -> None:
    report = ingest_slurm(home, SACCT_2205, cluster="probe")
    jobs = _rows(home, "slurm_jobs")
    assert {r["batch_id"] for r in jobs} == {report.batch_id}
    assert sorted(r["source_line"] for r in jobs)[:3] == [2, 5, 8]


def test_rejected_records_are_quarantined_with_file_line_field_reason(home: Path) -> None:
    report = ingest_slurm(home, MILA, cluster="mila")
    assert (report.records_read, report.records_landed, report.records_quarantined) == (8, 2, 6)
    quarantined = _rows(home, "quarantine")
    assert len(quarantined) == 6
    assert {q["file"] for q in quarantined} == {str(MILA)}
    assert {q["batch_id"] for q in quarantined} == {report.batch_id}
    first = min(quarantined, key=lambda q: q["line"])
    assert first["line"] == 1 and first["field"] == "line"
    assert "--parsable2" in first["reason"]
    assert first["raw"].startswith("alaingui@login-2:~$ sacct")
    manifest = batch_manifest(home)[0]
    assert manifest.records_read == manifest.records_landed + manifest.records_quarantined


def test_cli_prints_read_landed_quarantined(home: Path) -> None:
    result = run_cli(
        home, None, "ingest", "slurm", "--cluster", "probe", "--file", str(MILA), str(SACCT_2205)
    )
    assert result.exit_code == 0
    assert "read 8, landed 2, quarantined 6" in result.stdout
    assert "read 26, landed 26, quarantined 0" in result.stdout
    assert f"quarantined {MILA}:1: field line: fixed-width" in result.stdout
    assert "total: read 34, landed 28, quarantined 6" in result.stdout


def test_empty_layout_has_a_schema_file_per_raw_table(home: Path) -> None:
    ensure_layout(home)
    for table in raw_tables():
        assert (home / "raw" / table / EMPTY_FILE).exists()
    assert pq.read_schema(home / "raw" / "slurm_jobs" / EMPTY_FILE).field("batch_id")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfe\x00bad", r"bad.txt:1: field JobID: invalid UTF-8 byte 0xff"),
    ],
)
def test_unreadable_files_name_the_file(
    tmp_path: Path, home: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    with pytest.raises(SourceFileError, match=message) as err:
        ingest_slurm(home, path)
    assert str(path) in str(err.value)


def test_missing_file_and_bad_timezone_are_clear_errors(tmp_path: Path, home: Path) -> None:
    missing = run_cli(home, None, "ingest", "slurm", "--file", str(tmp_path / "nope.txt"))
    assert missing.exit_code == 1
    assert "nope.txt: cannot read" in missing.stderr
    zone = run_cli(
        home,
        None,
        "ingest",
        "slurm",
        "--cluster",
        "probe",
        "--file",
        str(SACCT_2205),
        "--timezone",
        "Mars/Base",
    )
    assert zone.exit_code == 1
    assert "Mars/Base" in zone.stderr and str(SACCT_2205) in zone.stderr


INVENTORY_HEADER = "gpu_uuid,node,gpu_model,gpu_class,in_service_from,in_service_to\n"


def test_inventory_rows_and_rejections() -> None:
    text = INVENTORY_HEADER + (
        "GPU-1,n1,NVIDIA H100 80GB HBM3,h100,2025-01-01T00:00:00Z,\n"
        "GPU-2,n1,NVIDIA H100 80GB HBM3,,2025-01-01T00:00:00Z,2025-06-01T00:00:00Z\n"
        "GPU-1,n2,NVIDIA H100 80GB HBM3,h100,2025-01-01T00:00:00Z,\n"
        "GPU-3,n1,NVIDIA H100 80GB HBM3,h100,yesterday,\n"
        "GPU-4,n1,NVIDIA H100 80GB HBM3,h100,2025-06-01T00:00:00Z,2025-01-01T00:00:00Z\n"
        ",n1,NVIDIA H100 80GB HBM3,h100,2025-01-01T00:00:00Z,\n"
        "GPU-5,n1\n"
    )
    result = parse_inventory_csv(text)
    assert result.records_read == 7
    assert [d.gpu_uuid for d in result.tables["inventory_devices"]] == ["GPU-1", "GPU-2"]
    assert [(r.line, r.field) for r in result.rejected] == [
        (4, "gpu_uuid"),
        (5, "in_service_from"),
        (6, "in_service_to"),
        (7, "gpu_uuid"),
        (8, "line"),
    ]
    assert "first on line 2" in result.rejected[0].reason
    assert "invalid timestamp 'yesterday'" in result.rejected[1].reason


def test_inventory_without_required_columns_is_refused(tmp_path: Path, home: Path) -> None:
    path = tmp_path / "cmdb.csv"
    path.write_text("uuid,host\nGPU-1,n1\n")
    with pytest.raises(SourceFileError, match="missing column"):
        ingest_inventory(home, path)
    with pytest.raises(InventoryFormatError, match="line 1: missing column"):
        parse_inventory_csv("uuid,host\n")
