"""Policy files are validated before dbt sees them; errors name file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuledger.paths import DEMO_POLICY_DIR
from gpuledger.policy import PolicyError, load_policy
from tests.conftest import run_cli, write_policy

GOOD = {
    "tenants": ["atlas,Atlas,,"],
    "ownership": ["slurm_account,atlas,atlas,,2026-01-01T00:00:00Z,"],
    "settings": ["charging_model,allocation_rate"],
}


def test_demo_policy_loads_and_hash_is_stable() -> None:
    first, second = load_policy(DEMO_POLICY_DIR), load_policy(DEMO_POLICY_DIR)
    assert first.settings["charging_model"] == "quota_burst"
    assert first.hash == second.hash and len(first.hash) == 64


def test_snapshot_normalizes_timestamps_and_writes_every_file(tmp_path: Path) -> None:
    policy = load_policy(write_policy(tmp_path / "p", GOOD))
    policy.write_snapshot(tmp_path / "snap")
    assert "2026-01-01 00:00:00" in (tmp_path / "snap" / "ownership.csv").read_text()
    assert (tmp_path / "snap" / "credits.csv").read_text().startswith("period,tenant_id")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"ownership": ["slurm_account,atlas,atlas,,next tuesday,"]},
            r"ownership.csv:2: field valid_from: 'next tuesday' is not an ISO 8601 timestamp",
        ),
        (
            {"ownership": ["cluster,atlas,atlas,,2026-01-01T00:00:00Z,"]},
            r"ownership.csv:2: field scope_type: 'cluster' is not one of",
        ),
        (
            {"ownership": ["slurm_account,atlas,ghost,,2026-01-01T00:00:00Z,"]},
            r"ownership.csv:2: field tenant_id: 'ghost' is not in tenants.csv",
        ),
        (
            {"ownership": ["slurm_account,atlas,atlas,,2026-02-01T00:00:00Z,2026-01-01T00:00:00Z"]},
            r"ownership.csv:2: field valid_to: .* is not after valid_from",
        ),
        (
            {"settings": ["charging_model,per_vibe"]},
            r"settings.csv:2: setting charging_model: 'per_vibe' is not one of",
        ),
        ({"settings": ["currency,USD"]}, r"settings.csv: setting charging_model is required"),
        (
            {"reservations": ["atlas,h100,lots,research,2026-01-01T00:00:00Z,"]},
            r"reservations.csv:2: field reserved_gpus: 'lots' is not a number",
        ),
        (
            {"cost_pools": ["2026-13,h100,100,0.5,USD"]},
            r"cost_pools.csv:2: field period: '2026-13' has no month 13",
        ),
        (
            {"cost_pools": ["2026-01,h100,100,1.5,USD"]},
            r"cost_pools.csv:2: field fixed_share: '1.5' is not between 0 and 1",
        ),
        (
            {"rate_card": ["v1,2026-01-01T00:00:00Z,,h100,per_token,1,USD"]},
            r"rate_card.csv:2: field charge_basis: 'per_token' is not one of",
        ),
    ],
)
def test_bad_policy_values_name_file_line_and_field(
    tmp_path: Path, change: dict, message: str
) -> None:
    with pytest.raises(PolicyError, match=message):
        load_policy(write_policy(tmp_path / "p", GOOD | change))


def test_missing_required_file_and_column(tmp_path: Path) -> None:
    folder = write_policy(tmp_path / "p", GOOD)
    (folder / "tenants.csv").unlink()
    with pytest.raises(PolicyError, match=r"tenants.csv: required policy file is missing"):
        load_policy(folder)
    (folder / "tenants.csv").write_text("tenant_id,tenant_name\natlas,Atlas\n")
    with pytest.raises(
        PolicyError, match=r"tenants.csv:1: missing column\(s\) department, cost_center"
    ):
        load_policy(folder)


def test_cli_reports_policy_errors_without_a_traceback(tmp_path: Path, home: Path) -> None:
    folder = write_policy(tmp_path / "p", GOOD | {"settings": ["charging_model,nope"]})
    result = run_cli(home, folder, "build")
    assert result.exit_code == 1
    assert result.stderr.startswith("gpuledger: ") and "settings.csv:2" in result.stderr
    assert "Traceback" not in result.stderr
