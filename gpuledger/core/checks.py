"""The reconciliation checks of a period close, registered once in dbt_project.yml.

`vars.reconciliation_checks` lists each check: its name, whether a `fail` blocks the close,
the unit of its figures and a one-line description. The check is the dbt model
models/marts/reconciliation/checks/reconciliation_check__<name>.sql; dbt compiles
marts.fact_reconciliation as the union of the registered checks' models (macro
union_reconciliation_checks), and Dagster makes one blocking asset check per registered
name (orchestration/checks.py). This module is how Python reads the list, and the rows the
warehouse reports for a period (`reconciliation`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from gpuledger.core.home import PROJECT_DIR
from gpuledger.core.warehouse import connect

PROJECT_FILE = PROJECT_DIR / "dbt_project.yml"
CHECK_MODELS_DIR = PROJECT_DIR / "models" / "marts" / "reconciliation" / "checks"
CHECK_MODEL_PREFIX = "reconciliation_check__"
FIELDS = {"name": str, "is_blocking": bool, "unit": str, "description": str}


class CheckRegistryError(ValueError):
    """The registry is malformed; the message names the file, line and field."""


@dataclass(frozen=True)
class CheckSpec:
    name: str
    is_blocking: bool
    unit: str
    description: str

    @property
    def model_name(self) -> str:
        return CHECK_MODEL_PREFIX + self.name


@dataclass(frozen=True)
class CheckResult:
    """A period's row of marts.fact_reconciliation."""

    check_name: str
    status: str
    is_blocking: bool
    observed_value: object
    limit_value: object
    unit: str
    detail: str

    @property
    def blocks(self) -> bool:
        return self.is_blocking and self.status == "fail"


def reconciliation(home: Path, period: str) -> tuple[CheckResult, ...]:
    with connect(home) as con:
        rows = con.execute(
            "select check_name, status, is_blocking, observed_value, limit_value, unit, detail "
            "from marts.fact_reconciliation where period = ? order by check_name",
            [period],
        ).fetchall()
    return tuple(CheckResult(*row) for row in rows)


def registered_check_names() -> tuple[str, ...]:
    return tuple(check.name for check in registered_checks())


def registered_checks(project_file: Path = PROJECT_FILE) -> tuple[CheckSpec, ...]:
    """Every registered check, in the registry's (and fact_reconciliation's union) order."""
    checks: list[CheckSpec] = []
    for lines, entry in _entries(project_file):
        where = f"{project_file}:{lines['-']}: vars.reconciliation_checks"
        if not isinstance(entry, dict):
            raise CheckRegistryError(f"{where}: each check is a mapping of {', '.join(FIELDS)}")
        for field, kind in FIELDS.items():
            if not isinstance(entry.get(field), kind):
                raise CheckRegistryError(
                    f"{project_file}:{lines.get(field, lines['-'])}: vars.reconciliation_checks, "
                    f"check {entry.get('name', '?')}: field {field} must be a {kind.__name__}"
                )
        if any(check.name == entry["name"] for check in checks):
            raise CheckRegistryError(f"{where}: check {entry['name']} is registered twice")
        checks.append(CheckSpec(**{field: entry[field] for field in FIELDS}))
    return tuple(checks)


def _entries(project_file: Path) -> list[tuple[dict[str, int], object]]:
    """Each item of vars.reconciliation_checks: its 1-based line ('-') and its fields' lines,
    and its value."""
    loader = yaml.SafeLoader(project_file.read_text())
    try:
        node = loader.get_single_node()
        for key in ("vars", "reconciliation_checks"):
            node = next((value for name, value in _pairs(node) if name.value == key), None)
        if not isinstance(node, yaml.SequenceNode):
            raise CheckRegistryError(f"{project_file}: vars.reconciliation_checks is not a list")
        return [
            (
                {"-": item.start_mark.line + 1}
                | {name.value: name.start_mark.line + 1 for name, _ in _pairs(item)},
                loader.construct_object(item, deep=True),
            )
            for item in node.value
        ]
    finally:
        loader.dispose()


def _pairs(node: yaml.Node | None) -> list[tuple[yaml.Node, yaml.Node]]:
    return node.value if isinstance(node, yaml.MappingNode) else []
