"""Helpers for the FOCUS export tests: a small home whose April holds a Correction, exports read
back as rows, and the FinOps Foundation's focus-validator (scripts/focus_validator/)."""

from __future__ import annotations

import csv
import datetime as dt
import os
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO, Job, run_cli, write_inventory, write_policy, write_sacct

MARCH, APRIL = dt.datetime(2026, 3, 1), dt.datetime(2026, 4, 1)
STORY_POLICY = {
    "tenants": ["atlas,Team Atlas,research,cc-1"],
    "ownership": ["slurm_account,atlas,atlas,atlas-train,2026-01-01T00:00:00Z,"],
    "reservations": ["atlas,h100,2,research,2026-01-01T00:00:00Z,"],
    "rate_card": [
        "r1,2026-01-01T00:00:00Z,,h100,reserved_gpu_hour,1.50,USD",
        "r1,2026-01-01T00:00:00Z,,h100,borrowed_gpu_hour,3.00,USD",
    ],
    "credits": ["2026-04,atlas,10.00,goodwill for a slow queue,adj-1"],
    "settings": [
        "charging_model,quota_burst",
        "unattributed_tolerance_pct,2",
        "currency,USD",
        "focus_billing_account_id,research-cluster",
        "focus_provider_name,Research Computing",
    ],
}
VALIDATE = REPO / "scripts" / "focus_validator" / "validate.sh"
OVERRIDES = REPO / "scripts" / "focus_validator" / "overrides-1.0.yaml"
FOCUS_VENV = REPO / ".venv-focus"


def correction_story(tmp: Path) -> Path:
    """One node of 8 H100s; atlas reserves 2 (quota_burst: 1.50 reserved, 3.00 borrowed per
    GPU-hour). March (400 GPU-h, 200 borrowed) is closed; then a March job of 40 GPU-hours, all
    borrowed, lands late, and April (40 GPU-h, 20 borrowed, a 10.00 credit) is closed with a
    Correction of March: burst_usage +40 GPU-hours, +120.00. A May job keeps the scheduler's
    evidence covering April; May stays open. The policy names its billing account and
    provider for the FOCUS export."""
    home, policy = tmp / "home", write_policy(tmp / "policy", STORY_POLICY)
    inventory = write_inventory(tmp / "inventory.csv", {"node-a": 8})
    jobs = [
        Job("1", "atlas", MARCH, MARCH + dt.timedelta(hours=100), 4, "node-a"),
        Job("3", "atlas", APRIL, APRIL + dt.timedelta(hours=10), 4, "node-a"),
        Job("5", "atlas", dt.datetime(2026, 5, 2), dt.datetime(2026, 5, 2, 12), 1, "node-a"),
    ]
    late = [Job("4", "atlas", dt.datetime(2026, 3, 2), dt.datetime(2026, 3, 2, 10), 4, "node-a")]
    steps = [
        ("ingest", "inventory", "--file", str(inventory)),
        ("ingest", "slurm", "--file", str(write_sacct(tmp / "sacct.txt", jobs))),
        ("close", "--period", "2026-03", "--approver", "finance"),
        ("ingest", "slurm", "--file", str(write_sacct(tmp / "late.txt", late))),
        ("close", "--period", "2026-04", "--approver", "finance"),
    ]
    for step in steps:
        result = run_cli(home, policy, *step)
        assert result.exit_code == 0, (step, result.stdout, result.stderr)
    return home


@dataclass(frozen=True)
class Export:
    name: str
    home: Path
    period: str
    path: Path
    printed: str

    @property
    def rows(self) -> list[dict[str, str | None]]:
        return read_focus_csv(self.path)


def read_focus_csv(path: Path) -> list[dict[str, str | None]]:
    """The rows of a FOCUS CSV, an empty field read as null."""
    with path.open(newline="", encoding="utf-8") as handle:
        return [
            {k: v if v != "" else None for k, v in row.items()} for row in csv.DictReader(handle)
        ]


def export(home: Path, period: str, fmt: str, output: Path, *extra: str) -> str:
    result = run_cli(
        home, None, "export", "--period", period, "--format", fmt, "--output", str(output), *extra
    )
    assert result.exit_code == 0, result.stdout + result.stderr
    return result.stdout


def focus_venv() -> Path:
    """The validator's environment, built by the Makefile once (a stamp file); a failed
    build fails the calling test with pip's output."""
    built = subprocess.run(
        ["make", "-s", str(FOCUS_VENV.relative_to(REPO) / ".installed")],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    if built.returncode != 0:
        pytest.fail(f"cannot build .venv-focus:\n{built.stdout}\n{built.stderr}")
    return FOCUS_VENV


@dataclass(frozen=True)
class Validation:
    returncode: int
    output: str
    counts: dict[str, int]
    outcomes: dict[str, str]  # check name -> passed | failed | errored | skipped


def run_validator(path: Path, xml: Path) -> Validation:
    venv = focus_venv()
    run = subprocess.run(
        [str(VALIDATE), str(path), str(xml)],
        capture_output=True,
        text=True,
        env={**os.environ, "FOCUS_VENV": str(venv)},
    )
    suites = ET.parse(xml).getroot()
    counts = {key: int(suites.get(key)) for key in ("tests", "failures", "errors", "skipped")}
    outcomes = {}
    for case in suites.iter("testcase"):
        name = case.get("name").split(" :: ")[0]
        kinds = {child.tag for child in case}
        outcomes[name] = next(
            (
                o
                for tag, o in [("failure", "failed"), ("error", "errored"), ("skipped", "skipped")]
                if tag in kinds
            ),
            "passed",
        )
    return Validation(run.returncode, run.stdout + run.stderr, counts, outcomes)
