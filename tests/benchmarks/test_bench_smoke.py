"""`make bench` at a tiny scale (16 GPUs, one day): the whole run through the CLI as a user
runs it, its results row written, every ingest landing all it read, both periods' steps
done, and the next day's run with its frozen period. A check that the benchmark runs, not of
its timings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

from benchmarks.results import COLUMNS
from tests.conftest import REPO


def test_the_benchmark_runs_end_to_end_and_writes_its_row(tmp_path: Path) -> None:
    results = tmp_path / "results.md"
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks.close_benchmark", "--gpus", "16", "--days", "1",
         "--workdir", str(tmp_path / "bench"), "--results", str(results)],
        cwd=REPO, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    rows = [line for line in results.read_text().splitlines() if line.startswith("| 20")]
    assert len(rows) == 1
    cells = [cell.strip() for cell in rows[0].strip("|").split("|")]
    assert len(cells) == len(COLUMNS)
    assert cells[COLUMNS.index("GPUs")] == "16"
    manifests = [
        row
        for path in (tmp_path / "bench" / "home" / "raw" / "batches").glob("*.parquet")
        for row in pq.read_table(path).to_pylist()
    ]
    assert {row["source"] for row in manifests} == {
        "inventory", "kubernetes", "slurm", "prometheus", "requests",
    }  # fmt: skip
    assert all(row["records_read"] == row["records_landed"] > 0 for row in manifests)
    assert sum(row["records_quarantined"] for row in manifests) == 0
    assert "period 2026-10 closed and published" in run.stdout
    assert "daily build" in run.stdout
    kept = "models built by period: 1 frozen period(s) kept (2026-10)"
    assert f"the next day's run (2026-11-02; {kept})" in run.stdout
