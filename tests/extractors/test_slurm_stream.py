"""extractors.slurm.stream and the file ingest that streams: sacct text read chunk by chunk
lands what it does read whole, whatever the chunk boundaries (records holding a newline
across them, a step chunks apart from its job, an invalid byte in a later piece)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from extractors import textfile
from extractors.filebatch import ReadOptions, SourceFileError
from extractors.slurm import client as slurm_client
from extractors.slurm.client import ingest_file
from extractors.slurm.parse import parse_sacct_text
from extractors.slurm.stream import SacctStream
from tests.conftest import FIXTURES, REAL_SLURM

EXTERNAL = FIXTURES / "real" / "external" / "slurm"
SAMPLES = {
    "gcm multi-line SubmitLine, |# delimiter": (
        EXTERNAL / "gcm_sacct_delim-pipehash_multiline-submitline.txt",
        {},
    ),
    "torchx --parsable het job": (EXTERNAL / "torchx_sacct_parsable_hetjob.txt", {"cluster": "t"}),
    "22.05 --parsable2": (REAL_SLURM / "slurm22.05_sacct_parsable2.txt", {"cluster": "p"}),
    "XDMoD fields": (REAL_SLURM / "slurm22.05_sacct_xdmod_fields.txt", {}),
    "parsable and fixed width": (
        REAL_SLURM / "mila_clockwork_sacct_parsable_and_fixedwidth.txt",
        {"cluster": "mila"},
    ),
}
HEADER = "JobID|Cluster|Account|State|Start|End|Elapsed|AllocTRES|SubmitLine"


def fed(text: str, lines_per_chunk: int, **options: str) -> tuple[list, list, int, list]:
    """The rows, rejections, records read and warnings of `text` fed in chunks of lines."""
    stream = SacctStream(**options)  # type: ignore[arg-type]
    lines = text.split("\n")
    rows, rejected, read = [], [], 0
    for start in range(0, len(lines), lines_per_chunk):
        last = start + lines_per_chunk >= len(lines)
        piece = "\n".join(lines[start : start + lines_per_chunk]) + ("" if last else "\n")
        chunk = stream.feed(piece, final=last)
        rows += chunk.rows.to_pylist()
        rejected += chunk.rejected
        read += chunk.records_read
    return rows, rejected, read, stream.warnings


@pytest.mark.parametrize("sample", SAMPLES)
@pytest.mark.parametrize("lines_per_chunk", [1, 2, 3, 7])
def test_text_fed_in_chunks_reads_as_it_does_whole(sample: str, lines_per_chunk: int) -> None:
    path, options = SAMPLES[sample]
    text = path.read_text(encoding="utf-8", errors="replace")
    whole = parse_sacct_text(text, **options)
    rows, rejected, read, warnings = fed(text, lines_per_chunk, **options)
    by_line = sorted(
        (dataclasses.asdict(row) for table in whole.tables.values() for row in table),
        key=lambda row: row["source_line"],
    )
    assert sorted(rows, key=lambda row: row["source_line"]) == by_line
    assert (rejected, read, warnings) == (whole.rejected, whole.records_read, whole.warnings)


def test_a_record_holding_newlines_is_carried_to_the_chunk_that_completes_it() -> None:
    text = (
        "JobID|Cluster|SubmitLine|State|Start|End|Elapsed|AllocTRES\n"
        "1|c|sbatch x|COMPLETED|2026-10-01T00:00:00|2026-10-01T01:00:00|01:00:00|gres/gpu=1\n"
        "2|c|sbatch --wrap 'a\n"
        "\n"
        "b'|COMPLETED|2026-10-01T00:00:00|2026-10-01T01:00:00|01:00:00|gres/gpu=2\n"
        "3|c|x|RUNNING|2026-10-01T00:00:00|Unknown|02:00:00|gres/gpu=4\n"
    )
    for lines_per_chunk in (1, 2, 3):
        rows, rejected, read, _ = fed(text, lines_per_chunk)
        assert not rejected and read == 3
        assert [(r["job_id"], r["source_line"], r["alloc_gpu_count"]) for r in rows] == [
            ("1", 2, 1),
            ("2", 3, 2),
            ("3", 6, 4),
        ]


def test_values_the_columns_do_not_read_are_read_by_record() -> None:
    lines = [
        "1|c|a|COMPLETED|2026-10-01T00:00:00+02:00|2026-10-01T01:00:00Z|1:00:00|gres/gpu=1|x",
        "2_[1-3]|c|a|PENDING|Unknown|Unknown|00:00:00||x",
        "3|c|a|COMPLETED|2026-02-30T00:00:00|2026-03-01T00:00:00|01:00:00||x",
        "4+1|c|a|COMPLETED|2026-10-01T00:00:00|2026-10-01T00:30:00|30:00|gres/gpu=x|x",
        "5|c|a|COMPLETED|2026-10-01T00:00:00|2026-10-01T00:30:00|\u0663\u0660:\u0660\u0660||x",
    ]
    rows, rejected, read, _ = fed("\n".join([HEADER, *lines]), 100)
    assert read == 5
    assert [(r["job_id"], str(r["start_at"])) for r in rows] == [
        ("1", "2026-09-30 22:00:00"),
        ("2_1", "None"),
        ("2_2", "None"),
        ("2_3", "None"),
        ("5", "2026-10-01 00:00:00"),
    ]
    assert rows[-1]["elapsed_seconds"] == 1800  # Python reads Arabic-Indic digits
    assert [(r.line, r.field) for r in rejected] == [(4, "Start"), (5, "AllocTRES")]


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(textfile, "PIECE_BYTES", 64)


def landed(home: Path, table: str) -> list[dict]:
    rows = []
    for path in sorted((home / "raw" / table).glob("*.parquet")):
        rows += pq.read_table(path).drop_columns(["batch_id"]).to_pylist()
    return sorted(rows, key=lambda row: (row["source_line"], str(row)))


def test_a_file_read_in_small_pieces_lands_as_in_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "sacct.txt"
    path.write_text(
        f"{HEADER}\n"
        "7.batch|c|a|COMPLETED|2026-10-01T00:00:00|2026-10-01T01:00:00|01:00:00||x\n"
        "8|c|a|COMPLETED|2026-10-01T00:00:00|2026-10-01T01:00:00|01:00:00|gres/gpu=1|x\n"
        "8.batch|c|a|COMPLETED|2026-10-01T00:00:00|2026-10-01T01:00:00|01:00:00||x\n"
        "9.0|c|a|COMPLETED|2026-10-01T00:00:00|2026-10-01T01:00:00|01:00:00||x\n"
        "7|c|a|COMPLETED|2026-10-01T00:00:00|2026-10-01T01:00:00|01:00:00|gres/gpu=2|x\n"
    )
    whole = ingest_file(tmp_path / "whole", path)
    monkeypatch.setattr(textfile, "PIECE_BYTES", 64)
    pieces = ingest_file(tmp_path / "pieces", path)
    assert dataclasses.replace(pieces, rejected=()) == dataclasses.replace(whole, rejected=())
    assert [(r.line, r.reason[:24]) for r in pieces.rejected] == [(5, "slurm_steps: orphan step")]
    for table in ("slurm_jobs", "slurm_steps"):
        assert landed(tmp_path / "pieces", table) == landed(tmp_path / "whole", table)
    # 7.batch comes chunks before its job 7: it lands; 9.0 has no job: quarantined
    assert [r["job_id"] for r in landed(tmp_path / "pieces", "slurm_steps")] == ["7", "8"]


def test_an_invalid_byte_in_a_later_piece_is_named_by_line_and_field(
    tmp_path: Path, small_pieces: None
) -> None:
    path = tmp_path / "sacct.txt"
    good = "1|c|a|COMPLETED|2026-10-01T00:00:00|2026-10-01T01:00:00|01:00:00||job\n"
    path.write_bytes(f"{HEADER}\n{good * 5}".encode() + good.encode().replace(b"job", b"j\xffb"))
    with pytest.raises(SourceFileError, match=r"sacct.txt:7: field SubmitLine: invalid UTF-8"):
        ingest_file(tmp_path / "home", path)
    assert not (tmp_path / "home" / "raw" / "batches").exists()
    report = ingest_file(tmp_path / "home", path, read=ReadOptions(errors="replace"))
    assert report.records_landed == 6
    assert report.warnings[-1].startswith(f"{path}:7: field SubmitLine: invalid UTF-8 byte 0xff")


def test_steps_find_their_jobs_in_earlier_batches_by_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    line = "|c|a|COMPLETED|2026-10-01T00:00:00|2026-10-01T01:00:00|01:00:00"
    for day, jobs in (("1", "7 8"), ("2", "9")):
        path = tmp_path / f"jobs-{day}.txt"
        path.write_text(HEADER + "\n" + "".join(f"{j}{line}|gres/gpu=1|x\n" for j in jobs.split()))
        assert ingest_file(home, path).records_landed == len(jobs.split())
    # jobs of another cluster and unknown ids are not found; keys are matched per batch
    wanted = {("c", "7"), ("c", "9"), ("other", "8"), ("c", "10")}
    assert slurm_client.landed_jobs(home, wanted) == {("c", "7"), ("c", "9")}
    steps = tmp_path / "steps.txt"
    steps.write_text(HEADER + "\n" + "".join(f"{j}.batch{line}||x\n" for j in ("7", "9", "10")))
    report = ingest_file(home, steps)
    assert (report.records_landed, [r.line for r in report.rejected]) == (2, [4])

    def unread(*args: object, **kwargs: object) -> None:
        raise AssertionError("a landed batch was read for no keys")

    monkeypatch.setattr(slurm_client.pq, "read_table", unread)
    assert slurm_client.landed_jobs(home, set()) == set()
