"""Helpers for the orchestration tests: a small March/April fleet and in-process job runs."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping
from pathlib import Path

from dagster import ExecuteInProcessResult

from orchestration.definitions import build_definitions
from orchestration.resources import GpuLedgerResource
from tests.conftest import Job, run_cli, write_inventory, write_policy, write_sacct

MARCH = dt.datetime(2026, 3, 1)
APRIL = dt.datetime(2026, 4, 1)
BASE_POLICY = {
    "tenants": ["atlas,Team Atlas,research,cc-1"],
    "ownership": ["slurm_account,atlas,atlas,,2026-01-01T00:00:00Z,"],
    "rate_card": ["r1,2026-01-01T00:00:00Z,,h100,allocated_gpu_hour,2.00,USD"],
    "settings": ["charging_model,allocation_rate", "unattributed_tolerance_pct,2", "currency,USD"],
}
# `scratch` mapped too: nothing unattributed
MAPPED_POLICY = BASE_POLICY | {
    "ownership": [
        *BASE_POLICY["ownership"],
        "slurm_account,scratch,atlas,sandbox,2026-01-01T00:00:00Z,",
    ]
}
QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


def land_march_and_april(home: Path, tmp: Path) -> None:
    """March: 400 GPU-h for atlas and 50 GPU-h under the unmapped account `scratch` (11.1%
    unattributed); April: 40 GPU-h for atlas. One node of 8 H100s."""
    jobs = [
        Job("1", "atlas", MARCH, MARCH + dt.timedelta(hours=100), 4, "node-a"),
        Job("2", "scratch", MARCH, MARCH + dt.timedelta(hours=50), 1, "node-a"),
        Job("3", "atlas", APRIL, APRIL + dt.timedelta(hours=10), 4, "node-a"),
    ]
    inventory = write_inventory(tmp / "inventory.csv", {"node-a": 8})
    assert run_cli(home, None, "ingest", "inventory", "--file", str(inventory)).exit_code == 0
    sacct = write_sacct(tmp / "sacct.txt", jobs)
    # sacct -S 2026-03-01, run on 3 May: it covers March and April
    window = ("--covers-from", "2026-03-01T00:00:00Z", "--extracted-at", "2026-05-03T00:00:00Z")
    landed = run_cli(home, None, "ingest", "slurm", "--file", str(sacct), *window)
    assert landed.exit_code == 0


def policies(tmp: Path) -> tuple[Path, Path]:
    """(unmapped, mapped) policy directories."""
    return write_policy(tmp / "unmapped", BASE_POLICY), write_policy(tmp / "mapped", MAPPED_POLICY)


def execute(
    job: str,
    home: Path,
    policy: Path,
    partition_key: str | None = None,
    run_config: Mapping[str, object] | None = None,
) -> ExecuteInProcessResult:
    """The job of the Definitions, executed in process against `home` and `policy`."""
    definitions = build_definitions(GpuLedgerResource(home=str(home), policy=str(policy)))
    return definitions.resolve_job_def(job).execute_in_process(
        partition_key=partition_key,
        run_config={**QUIET, **(run_config or {})},
        raise_on_error=False,
    )


def close_config(approver: str) -> dict[str, object]:
    return {"ops": {"published_period": {"config": {"approver": approver}}}}


def checks_by_name(result: ExecuteInProcessResult) -> dict[str, bool]:
    return {e.check_name: e.passed for e in result.get_asset_check_evaluations()}


def step_failures(result: ExecuteInProcessResult) -> dict[str, str]:
    """step key -> the failure description (a refusal's message) or error message."""
    failures = {}
    for event in result.all_events:
        if event.is_step_failure:
            data = event.step_failure_data
            user = data.user_failure_data
            failures[event.step_key] = user.description if user else data.error.message
    return failures


def drop_in_inbox(
    home: Path, source: str, name: str, content: str | bytes, day: dt.datetime
) -> Path:
    """An evidence file in `<home>/inbox/<source>/`, modified at `day` (its daily partition)."""
    folder = home / "inbox" / source
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    stamp = day.replace(tzinfo=dt.UTC).timestamp()
    os.utime(path, (stamp, stamp))
    return path
