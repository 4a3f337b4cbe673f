"""Every real Slurm sample ingests with the expected job and GPU counts, and the 22.05
capture (text and JSON of the same jobs) reaches the marts with the GPU-seconds it held."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, run_cli, sql, write_inventory, write_policy

SLURM = FIXTURES / "real" / "slurm"
XDMOD = FIXTURES / "real" / "xdmod"

# file, read, landed, quarantined, job rows, step rows, GPUs held (sum over jobs)
SAMPLES = [
    (SLURM / "slurm22.05_sacct_parsable2.txt", 26, 26, 0, 8, 18, 11),
    (SLURM / "slurm22.05_sacct.json", 26, 26, 0, 8, 18, 11),
    (SLURM / "clockwork_sacct_json_slurm21.08_dbv0.0.37.json", 2, 2, 0, 2, 0, 2),
    (SLURM / "mila_clockwork_sacct_parsable_and_fixedwidth.txt", 8, 2, 6, 2, 0, 0),
    (XDMOD / "shredder_input_accounting-logs.log", 4, 4, 0, 4, 0, 2),
    (XDMOD / "shredder_input_job-arrays_excerpt.log", 3, 3, 0, 6, 0, 0),
    (XDMOD / "shredder_input_non-ended-job-state.log", 2, 2, 0, 2, 0, 0),
]


@pytest.mark.parametrize(
    ("path", "read", "landed", "quarantined", "jobs", "steps", "gpus"),
    SAMPLES,
    ids=[s[0].name for s in SAMPLES],
)
def test_real_sample_counts(
    home: Path,
    path: Path,
    read: int,
    landed: int,
    quarantined: int,
    jobs: int,
    steps: int,
    gpus: int,
) -> None:
    from extractors.slurm.client import ingest_file

    # the headers without a Cluster column need one named; a Cluster column wins over it
    report = ingest_file(home, path, cluster="sample")
    assert (report.records_read, report.records_landed, report.records_quarantined) == (
        read,
        landed,
        quarantined,
    )
    assert report.rows_by_table.get("slurm_jobs", 0) == jobs
    assert report.rows_by_table.get("slurm_steps", 0) == steps
    import pyarrow.parquet as pq

    job_rows = pq.read_table(home / "raw" / "slurm_jobs" / f"{report.batch_id}.parquet").to_pylist()
    assert sum(r["alloc_gpu_count"] for r in job_rows) == gpus


def test_text_and_json_of_the_same_jobs_build_to_the_same_gpu_seconds(
    tmp_path: Path, home: Path
) -> None:
    policy = write_policy(
        tmp_path / "policy",
        {
            "tenants": ["atlas,Atlas,,", "boreal,Boreal,,"],
            "ownership": [
                "slurm_account,atlas,atlas,,2026-01-01T00:00:00Z,",
                "slurm_account,boreal,boreal,,2026-01-01T00:00:00Z,",
            ],
            "rate_card": ["r,2026-01-01T00:00:00Z,,h100,allocated_gpu_hour,3600,USD"],
            "settings": ["charging_model,allocation_rate"],
        },
    )
    inventory = write_inventory(tmp_path / "inventory.csv", {"gpunode01": 8})
    assert run_cli(home, policy, "ingest", "inventory", "--file", str(inventory)).exit_code == 0
    text = SLURM / "slurm22.05_sacct_parsable2.txt"
    # the text capture has no Cluster column: name it so both captures describe one cluster
    assert (
        run_cli(
            home, policy, "ingest", "slurm", "--cluster", "probe", "--file", str(text)
        ).exit_code
        == 0
    )
    assert (
        run_cli(
            home, policy, "ingest", "slurm", "--file", str(SLURM / "slurm22.05_sacct.json")
        ).exit_code
        == 0
    )
    assert run_cli(home, policy, "build").exit_code == 0

    assert sql(
        home, "select count(*), count(distinct workload_id) from staging.stg_slurm__jobs"
    ) == [(8, 8)]
    seconds = sql(
        home,
        "select tenant_id, round(sum(allocated_gpu_hours) * 3600) from marts.fact_gpu_allocation "
        "group by all order by 1",
    )
    assert seconds == [("atlas", Decimal("13")), ("boreal", Decimal("24"))]
    # at 3600 per GPU-hour, a GPU-second costs 1.00
    charges = sql(home, "select tenant_id, amount from marts.fact_chargeback order by 1")
    assert charges == [("atlas", Decimal("13.00")), ("boreal", Decimal("24.00"))]
    states = sql(home, "select job_state, count(*) from marts.dim_workload group by all order by 1")
    assert states == [("CANCELLED", 1), ("COMPLETED", 6), ("FAILED", 1)]
