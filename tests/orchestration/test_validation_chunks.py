"""Great Expectations validates a landed batch a slice of rows at a time: the outcome, the
evidence span and the rows it finds failing are those of the whole file, whatever the slice."""

from __future__ import annotations

import datetime as dt
import json
import math
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from extractors.rawstore import batch_files
from extractors.slurm.records import SlurmJob
from orchestration import validation
from orchestration.validation import (
    CHUNK_BYTES_VARIABLE,
    read_bytes,
    suite_columns,
    validate_batches,
)
from tests.conftest import Job, run_cli, write_policy
from tests.orchestration.conftest import BASE_POLICY

START = dt.datetime(2026, 3, 2)
# 20 jobs, one a day apart; the 13th still runs (no end): its interval reaches the extraction
JOBS = [
    Job(
        str(100 + n),
        "atlas",
        START + dt.timedelta(days=n),
        START + dt.timedelta(days=n, hours=2),
        1,
        "node-a",
    )
    if n != 12
    else Job(str(100 + n), "atlas", START + dt.timedelta(days=n), None, 1, "node-a", "RUNNING")
    for n in range(20)
]


@pytest.fixture(scope="module")
def landed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A home with the 20 jobs landed from one sacct file, not yet validated."""
    tmp = tmp_path_factory.mktemp("chunks")
    home = tmp / "home"
    policy = write_policy(tmp / "policy", BASE_POLICY)
    sacct = tmp / "sacct.txt"
    sacct.write_text("".join(job.line() + "\n" for job in JOBS))
    ingested = run_cli(
        home,
        policy,
        "ingest",
        "slurm",
        "--file",
        str(sacct),
        "--extracted-at",
        "2026-03-25T08:00:00",
    )
    assert ingested.exit_code == 0, ingested.stderr
    (manifest,) = [pq.read_table(p).to_pylist()[0] for p in batch_files(home / "raw" / "batches")]
    assert manifest["records_landed"] == 20
    return home, manifest["batch_id"]


def _validate(source: Path, copy: Path, batch_id: str, chunk_bytes: int, monkeypatch) -> dict:
    shutil.copytree(source, copy)
    monkeypatch.setenv(CHUNK_BYTES_VARIABLE, str(chunk_bytes))
    (outcome,) = validate_batches(copy, [batch_id])
    results = json.loads(Path(outcome.results_path).read_text())
    return {"outcome": outcome, "results": results}


def _row_bytes(home: Path, batch_id: str) -> float:
    """The bytes of a row in the columns validation reads (suite_columns)."""
    file = pq.ParquetFile(home / "raw" / "slurm_jobs" / f"{batch_id}.parquet")
    _, size = read_bytes(file, suite_columns(SlurmJob))
    return size / file.metadata.num_rows


def test_slices_give_the_outcome_and_span_of_the_whole_batch(
    landed: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, batch_id = landed
    whole = _validate(home, tmp_path / "whole", batch_id, 2**30, monkeypatch)
    # three rows' worth of bytes: slices of 3 rows, the last of 2
    sliced = _validate(
        home, tmp_path / "sliced", batch_id, math.ceil(3 * _row_bytes(home, batch_id)), monkeypatch
    )
    for run in (whole, sliced):
        assert not run["outcome"].quarantined
        assert run["results"]["outcome"] == "passed"
        assert run["outcome"].suites[0].rows == 20
    assert [c["rows"] for c in whole["results"]["suites"]["slurm_jobs"]["chunks"]] == [20]
    chunks = sliced["results"]["suites"]["slurm_jobs"]["chunks"]
    assert [c["first_row"] for c in chunks] == list(range(0, 20, 3))
    assert sum(c["rows"] for c in chunks) == 20 and all(c["success"] for c in chunks)
    # a slice is named by its first row, not fingerprinted by GX (an md5 over every row)
    for chunk in chunks:
        assert set(chunk["meta"]["batch_markers"]) == {"ge_load_time"}
    # the span: the first job's submit to the extraction time (the 13th job still runs)
    spans = {
        (r["outcome"].first_evidence_at, r["outcome"].last_evidence_at) for r in (whole, sliced)
    }
    assert spans == {(START, dt.datetime(2026, 3, 25, 8))}


def test_a_failing_row_in_a_later_slice_is_named_by_its_line(
    landed: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, batch_id = landed
    broken = tmp_path / "source"
    shutil.copytree(home, broken)
    # a landing that let through a job ending before it started, the 15th row (in the 5th
    # slice of 3 rows, rows 12-14): GX must find it though landing did not
    path = broken / "raw" / "slurm_jobs" / f"{batch_id}.parquet"
    table = pq.read_table(path)
    index = pa.array([i == 14 for i in range(table.num_rows)])
    start = table.column("start_at")
    end = pc.if_else(
        index, pc.subtract(start, pa.scalar(dt.timedelta(hours=1))), table.column("end_at")
    )
    table = table.set_column(
        table.schema.get_field_index("end_at"), table.schema.field("end_at"), end
    )
    pq.write_table(table, path)
    line = table.column("source_line")[14].as_py()

    slice_bytes = math.ceil(3 * _row_bytes(broken, batch_id))
    run = _validate(broken, tmp_path / "checked", batch_id, slice_bytes, monkeypatch)
    outcome = run["outcome"]
    assert outcome.quarantined
    (suite,) = outcome.suites
    assert suite.failures == ("end_at >= start_at: 1 of 20 rows",)
    chunks = run["results"]["suites"]["slurm_jobs"]["chunks"]
    assert [c["success"] for c in chunks] == [True, True, True, True, False, True, True]
    # the whole batch is taken out; the failing row carries its expectation, the rest the batch
    checked = tmp_path / "checked"
    (manifest,) = [
        pq.read_table(p).to_pylist()[0] for p in batch_files(checked / "raw" / "batches")
    ]
    assert (manifest["records_landed"], manifest["records_quarantined"]) == (0, 20)
    rows = pq.read_table(
        checked / "raw" / "quarantine" / f"{batch_id}-validation.parquet"
    ).to_pylist()
    assert len(rows) == 20
    failing = [(r["line"], r["field"], r["reason"]) for r in rows if r["field"] != "batch"]
    assert failing == [
        (line, "start_at,end_at", "slurm_jobs: expectation end_at >= start_at failed")
    ]


def test_worker_processes_validate_a_backlog_as_this_process_does(
    landed: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A backlog of batches (here two, one with a row GX finds failing) validated by two
    spawned worker processes gives the outcomes, spans, results and quarantine of the build's
    own process, in the order of the batch ids."""
    home, batch_id = landed
    source = tmp_path / "source"
    shutil.copytree(home, source)
    later = tmp_path / "later.txt"
    later.write_text(
        "".join(
            Job(str(500 + n), "atlas", START, START + dt.timedelta(hours=n + 1), 1, "node-b").line()
            + "\n"
            for n in range(5)
        )
    )
    policy = write_policy(tmp_path / "policy", BASE_POLICY)
    ingested = run_cli(source, policy, "ingest", "slurm", "--file", str(later))
    assert ingested.exit_code == 0, ingested.stderr
    path = source / "raw" / "slurm_jobs" / f"{batch_id}.parquet"
    table = pq.read_table(path)
    start = table.column("start_at")
    end = pc.if_else(
        pa.array([i == 3 for i in range(table.num_rows)]),
        pc.subtract(start, pa.scalar(dt.timedelta(hours=1))),
        table.column("end_at"),
    )
    pq.write_table(table.set_column(table.schema.get_field_index("end_at"), "end_at", end), path)
    batches = sorted(p.stem for p in batch_files(source / "raw" / "batches"))
    assert len(batches) == 2

    found = {}
    for workers in ("1", "2"):
        copy = tmp_path / f"workers-{workers}"
        shutil.copytree(source, copy)
        monkeypatch.setenv(validation.WORKERS_VARIABLE, workers)
        monkeypatch.setattr(validation, "WORKER_ROWS", 0)
        assert validation._workers(copy, batches) == int(workers)
        outcomes = validate_batches(copy, batches)
        results = [json.loads(Path(o.results_path).read_text()) for o in outcomes]
        quarantine = pq.read_table(
            copy / "raw" / "quarantine" / f"{batch_id}-validation.parquet"
        ).to_pylist()
        found[workers] = (
            [(o.batch_id, o.quarantined, o.suites, o.first_evidence_at, o.last_evidence_at)
             for o in outcomes],
            [(r["outcome"], r["suites"]["slurm_jobs"]["rows"]) for r in results],
            [(r["line"], r["field"], r["reason"]) for r in quarantine],
        )  # fmt: skip
    assert found["2"] == found["1"]
    outcomes, results, quarantine = found["2"]
    assert [o[0] for o in outcomes] == batches
    assert sorted(r[0] for r in results) == ["passed", "quarantined"]
    assert len(quarantine) == 20
