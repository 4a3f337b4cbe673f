"""The reconciliation check registry (dbt_project.yml vars.reconciliation_checks) and the check
models agree, and a malformed registry is named by file, line and field."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpuledger.core.checks import (
    CHECK_MODEL_PREFIX,
    CHECK_MODELS_DIR,
    CheckRegistryError,
    registered_checks,
)


def test_every_check_model_is_registered_and_every_registered_check_has_a_model() -> None:
    models = {path.stem for path in CHECK_MODELS_DIR.glob("*.sql")}
    registered = {check.model_name for check in registered_checks()}
    assert all(name.startswith(CHECK_MODEL_PREFIX) for name in models), models
    assert models - registered == set(), "check models without a registration"
    assert registered - models == set(), "registered checks without a model"


def test_the_close_checks_block_and_the_informational_ones_do_not() -> None:
    checks = {check.name: check for check in registered_checks()}
    # quarantined records block a close too (above quarantine_tolerance_pct)
    assert {name for name, check in checks.items() if not check.is_blocking} == {
        "oversubscribed_timeslice",
        "label_ownership_changes",
    }
    assert all(check.unit and check.description for check in checks.values())


def _project(tmp_path: Path, entries: str) -> Path:
    path = tmp_path / "dbt_project.yml"
    path.write_text(f"name: x\nvars:\n  schema_version: '1'\n  reconciliation_checks:\n{entries}")
    return path


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        (
            "    - name: a\n      is_blocking: true\n      unit: u\n      description: d\n"
            "    - name: b\n      is_blocking: yes please\n      unit: u\n      description: d\n",
            "dbt_project.yml:10: vars.reconciliation_checks, check b: "
            "field is_blocking must be a bool",
        ),
        (
            "    - name: a\n      is_blocking: false\n      description: d\n",
            "dbt_project.yml:5: vars.reconciliation_checks, check a: field unit must be a str",
        ),
        (
            "    - name: a\n      is_blocking: true\n      unit: u\n      description: d\n"
            "    - name: a\n      is_blocking: true\n      unit: u\n      description: d\n",
            "dbt_project.yml:9: vars.reconciliation_checks: check a is registered twice",
        ),
        ("    - just a name\n", "dbt_project.yml:5: vars.reconciliation_checks: each check is"),
    ],
)
def test_a_malformed_registry_names_file_line_and_field(
    tmp_path: Path, entries: str, message: str
) -> None:
    with pytest.raises(CheckRegistryError, match=re.escape(message)):
        registered_checks(_project(tmp_path, entries))


def test_a_project_without_a_registry_says_so(tmp_path: Path) -> None:
    path = tmp_path / "dbt_project.yml"
    path.write_text("name: x\nvars:\n  schema_version: '1'\n")
    with pytest.raises(CheckRegistryError, match=r"vars\.reconciliation_checks is not a list"):
        registered_checks(path)
