"""`gpuledger-mf`: MetricFlow's `mf`, offline.

`mf` asks PyPI for a newer version of itself on every run (update_checker, which it offers no
switch for); GPU Ledger never reaches the internet at run time, so this entry point answers
"no update" before handing over to `mf` with the same arguments.
"""

from __future__ import annotations

import update_checker


def _no_update(self: update_checker.UpdateChecker, package_name: str, package_version: str):
    return None


def main() -> None:
    update_checker.UpdateChecker.check = _no_update
    from dbt_metricflow.cli.main import cli

    cli()
