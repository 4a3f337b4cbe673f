"""The commands that only read or land files start without Dagster or dbt: `gpuledger.cli`
imports gpuledger.runs (and through it the Dagster runner) only in the commands that run jobs
(build, close, reopen), and the kubernetes client only for a live Kubernetes ingest (~0.8 s).
Measured by the benchmark's CLI start-up step; held here as imports."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

PROBE = (
    "import sys, gpuledger.cli; gpuledger.cli._parser(); "
    "print(sorted(m for m in ('dagster', 'dbt', 'orchestration', 'kubernetes') "
    "if m in sys.modules))"
)


def test_the_cli_imports_neither_dagster_nor_dbt_nor_the_kubernetes_client() -> None:
    probe = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert probe.stdout.strip() == "[]"
