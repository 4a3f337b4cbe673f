"""Where things live: the repository's dbt project, a deployment's home and policy."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]
DEMO_POLICY_DIR = PROJECT_DIR / "policy" / "demo"


def resolve_home(value: str | None) -> Path:
    return Path(value or os.environ.get("GPULEDGER_HOME") or ".gpuledger").resolve()


def resolve_policy(value: str | None) -> Path:
    return Path(value or os.environ.get("GPULEDGER_POLICY") or DEMO_POLICY_DIR).resolve()


def warehouse_path(home: Path) -> Path:
    return home / "warehouse.duckdb"
