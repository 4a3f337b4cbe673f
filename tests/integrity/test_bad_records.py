"""A bad record is quarantined alone (with the records that depend on it), never its batch:
read = landed + quarantined, with the reason, file, line and field of each."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from extractors.rawstore import batch_files
from tests.conftest import REAL_SLURM, run_cli, write_policy
from tests.orchestration.conftest import BASE_POLICY

XDMOD = REAL_SLURM / "slurm22.05_sacct_xdmod_fields.txt"


def _manifest(home: Path, file: Path) -> dict:
    manifests = [pq.read_table(p).to_pylist()[0] for p in batch_files(home / "raw" / "batches")]
    return next(m for m in manifests if m["file"] == str(file))


def test_a_job_ending_before_it_starts_is_quarantined_with_its_steps(tmp_path: Path) -> None:
    # job 2 of the real Slurm 22.05 sample, its End moved before its Start (Elapsed as sacct
    # prints it); its two steps go with it, the 7 other jobs and their steps land
    lines = XDMOD.read_text().splitlines()
    lines[0] = lines[0].replace(
        "2026-11-29T13:00:41|2026-11-29T13:00:45", "2026-11-29T13:00:45|2026-11-29T13:00:41"
    )
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines) + "\n")
    home = tmp_path / "home"
    policy = write_policy(tmp_path / "policy", BASE_POLICY)
    result = run_cli(home, policy, "ingest", "slurm", "--file", str(bad))
    assert result.exit_code == 0, result.stderr
    assert f"{bad}: read 26, landed 23, quarantined 3" in result.stdout
    manifest = _manifest(home, bad)
    read, landed, held = (
        manifest["records_read"],
        manifest["records_landed"],
        manifest["records_quarantined"],
    )
    assert (read, landed, held) == (26, 23, 3) and read == landed + held
    quarantine = pq.read_table(
        home / "raw" / "quarantine" / f"{manifest['batch_id']}.parquet"
    ).to_pylist()
    assert [(q["file"], q["line"], q["field"], q["reason"]) for q in quarantine] == [
        (str(bad), 1, "start_at,end_at", "slurm_jobs: expectation end_at >= start_at failed"),
        (str(bad), 2, "cluster,job_id", "slurm_steps: its slurm_jobs record ledgertest/2 failed"),
        (str(bad), 3, "cluster,job_id", "slurm_steps: its slurm_jobs record ledgertest/2 failed"),
    ]
    jobs = pq.read_table(home / "raw" / "slurm_jobs" / f"{manifest['batch_id']}.parquet")
    assert "2" not in jobs.column("job_id").to_pylist() and jobs.num_rows == 7
