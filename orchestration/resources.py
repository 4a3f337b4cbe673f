"""Where a deployment lives, as a Dagster resource: GPULEDGER_HOME and the policy directory.

Unset fields fall back to the environment when used (`GPULEDGER_HOME`, default `./.gpuledger`;
`GPULEDGER_POLICY`, default the demo policy), exactly as the CLI resolves them, so the UI
started with those variables and `gpuledger --home ... --policy ...` (which passes them
explicitly into the in-process run) address the same warehouse.
"""

from __future__ import annotations

from pathlib import Path

from dagster import ConfigurableResource

from gpuledger.core.home import resolve_home, resolve_policy


class GpuLedgerResource(ConfigurableResource):
    home: str | None = None
    policy: str | None = None

    def home_path(self) -> Path:
        return resolve_home(self.home)

    def policy_path(self) -> Path:
        return resolve_policy(self.policy)
