"""What a provisional build shows is honest: a line no rate priced reads `unpriced` (never
0.00) and the total it leaves out says so; user and job names reach the marts only as the
personal_data setting allows (hashed with the home's secret salt by default)."""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import os
import re
import stat
from pathlib import Path

import pytest

from gpuledger.core.warehouse import personal_data_salt_path
from tests.conftest import Job, run_cli, sql, write_inventory, write_policy, write_sacct

MARCH = dt.datetime(2026, 3, 1)
# h100 has an allocated_gpu_hour rate only until 2026-03-15: job 2 runs after it
POLICY = {
    "tenants": ["atlas,Team Atlas,research,cc-1"],
    "ownership": ["slurm_account,atlas,atlas,,2026-01-01T00:00:00Z,"],
    "rate_card": ["r1,2026-01-01T00:00:00Z,2026-03-15T00:00:00Z,h100,allocated_gpu_hour,2,USD"],
    "settings": ["charging_model,allocation_rate", "currency,USD"],
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("provisional")
    home, policy = tmp / "home", write_policy(tmp / "policy", POLICY)
    inventory = write_inventory(tmp / "inventory.csv", {"node-a": 8})
    assert run_cli(home, None, "ingest", "inventory", "--file", str(inventory)).exit_code == 0
    jobs = [
        Job("1", "atlas", MARCH, MARCH + dt.timedelta(hours=100), 4, "node-a"),
        Job(
            "2",
            "atlas",
            MARCH + dt.timedelta(days=19),
            MARCH + dt.timedelta(days=19, hours=10),
            1,
            "node-a",
        ),
    ]
    sacct = write_sacct(tmp / "sacct.txt", jobs)
    assert run_cli(home, None, "ingest", "slurm", "--file", str(sacct)).exit_code == 0
    result = run_cli(home, policy, "build")
    assert result.exit_code == 0, result.stdout + result.stderr
    return home, policy


def test_unpriced_line_reads_unpriced_and_its_total_says_incomplete(
    built: tuple[Path, Path],
) -> None:
    home, policy = built
    assert sql(
        home,
        "select quantity, unit_price, amount from marts.fact_chargeback order by quantity",
    ) == [(10, None, 0), (400, 2, 800)]
    assert sql(home, "select total_charge, unpriced_lines from marts.fact_showback") == [(800, 1)]

    table = run_cli(home, policy, "report", "--period", "2026-03", "--tenant", "atlas").stdout
    atlas = next(line for line in table.splitlines() if line.startswith("atlas"))
    assert "800.00 + unpriced" in atlas
    assert "\nprovisional: 2026-03 is not closed;" in table
    assert "\ntotal: 800.00 USD + unpriced (1 line no rate covers)\n" in table
    charged = [line.split() for line in table.splitlines() if line.startswith("allocated_gpu")]
    assert [line[:6] for line in charged] == [
        ["allocated_gpu_hours", "h100", "400.000", "gpu_hour", "2.000", "800.00"],
        ["allocated_gpu_hours", "h100", "10.000", "gpu_hour", "unpriced", "unpriced"],
    ]

    showback = run_cli(home, policy, "report", "--period", "2026-03", "--format", "csv").stdout
    assert next(csv.DictReader(io.StringIO(showback)))["total_charge"] == "800.00 + unpriced"
    lines = run_cli(
        home, policy, "report", "--period", "2026-03", "--tenant", "atlas", "--format", "csv"
    ).stdout
    rows = {row["quantity"]: row for row in csv.DictReader(io.StringIO(lines))}
    assert (rows["10.000000"]["unit_price"], rows["10.000000"]["amount"]) == ("unpriced",) * 2
    assert (rows["400.000000"]["unit_price"], rows["400.000000"]["amount"]) == (
        "2.000000",
        "800.00",
    )

    page = run_cli(
        home, policy, "report", "--period", "2026-03", "--tenant", "atlas", "--format", "html"
    ).stdout
    assert re.search(r'data-metric="total_charge"[^>]*>800\.00 \+ unpriced<', page)
    # the unpriced line: its price is null and its amount 0.00 in the mart, shown `unpriced`
    for metric, value in (("unit_price", "null"), ("amount", "0.00")):
        assert re.search(rf'data-metric="{metric}"[^>]*data-value="{value}">unpriced<', page)
    assert "Provisional: 2026-03 is not closed" in page


def test_user_and_job_names_are_hashed_with_the_home_salt_by_default(
    built: tuple[Path, Path],
) -> None:
    home, _ = built
    salt_file = personal_data_salt_path(home)
    assert stat.S_IMODE(os.stat(salt_file).st_mode) == 0o600
    salt = salt_file.read_text().splitlines()[1]
    assert len(salt) == 64

    def hashed(name: str) -> str:
        return hashlib.sha256(f"{salt}|{name}".encode()).hexdigest()

    assert sql(home, "select job_id, user_name, job_name from marts.dim_workload order by 1") == [
        ("1", hashed("u"), hashed("job1")),
        ("2", hashed("u"), hashed("job2")),
    ]
    assert sql(home, "select distinct user_name from staging.stg_slurm__jobs") == [("u",)]
    columns = "select table_name from information_schema.columns where column_name = 'salt'"
    assert sql(home, columns) == []
