"""The semantic layer over a home's served copy: `gpuledger metrics` (README "Metrics").

The metrics are defined once, in models/marts/semantic/: semantic models over the marts and the
metrics on them. MetricFlow's `mf` runs in a dbt project root that holds dbt_project.yml and
target/semantic_manifest.json, and connects with that project's profile. This lays such a root
out in `<home>/metricflow/`:

- dbt_project.yml naming the profile `gpuledger_metrics` of the repository's profiles.yml: the
  served copy, read-only, so nothing mf does can block or break the pipeline (it never opens
  warehouse.duckdb);
- profiles.yml, a link to the repository's;
- target/: `dbt parse` of the repository's project with that profile (the semantic manifest),
  and logs/.

Then `cd <home>/metricflow && GPULEDGER_HOME=<home> gpuledger-mf query ...` (gpuledger/mf.py:
MetricFlow's `mf`, kept offline).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from gpuledger.core.home import PROJECT_DIR, served_path
from gpuledger.core.serving import NotServedError
from gpuledger.core.warehouse import BuildError, dbt_executable

PROFILE = "gpuledger_metrics"
PROJECT_FILE = f"""\
# Written by `gpuledger metrics`: MetricFlow's project root for this home (the models are the
# repository's; target/ holds their semantic manifest, parsed with the profile below).
name: {PROFILE}
version: "0.1.0"
config-version: 2
profile: {PROFILE}
"""


@dataclass(frozen=True)
class Metric:
    name: str
    label: str


@dataclass(frozen=True)
class SemanticLayer:
    """A home's MetricFlow project root and the metrics its semantic manifest defines."""

    home: Path
    root: Path
    metrics: tuple[Metric, ...]

    def mf_command(self, arguments: str) -> str:
        """The shell line that runs `mf <arguments>` against this home."""
        return (
            f"cd {shlex.quote(str(self.root))} && "
            f"GPULEDGER_HOME={shlex.quote(str(self.home))} gpuledger-mf {arguments}"
        )


def metricflow_root(home: Path) -> Path:
    return home / "metricflow"


def prepare_semantic_layer(home: Path) -> SemanticLayer:
    """Parse the semantic layer for `home`'s served copy into `<home>/metricflow/`."""
    if not served_path(home).exists():
        raise NotServedError(
            f"{served_path(home)}: no marts served yet; run `gpuledger build` first"
        )
    root = metricflow_root(home)
    root.mkdir(parents=True, exist_ok=True)
    (root / "dbt_project.yml").write_text(PROJECT_FILE)
    profiles = root / "profiles.yml"
    profiles.unlink(missing_ok=True)
    profiles.symlink_to(PROJECT_DIR / "profiles.yml")
    command = [
        dbt_executable(),
        "parse",
        "--project-dir",
        str(PROJECT_DIR),
        "--profiles-dir",
        str(PROJECT_DIR),
        "--profile",
        PROFILE,
        "--target-path",
        str(root / "target"),
        "--log-path",
        str(root / "logs"),
        "--quiet",
    ]
    env = {**os.environ, "GPULEDGER_HOME": str(home), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    completed = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        output = (completed.stdout + completed.stderr).strip()
        raise BuildError(f"dbt parse of the semantic layer failed:\n{output[-4000:]}")
    manifest = json.loads((root / "target" / "semantic_manifest.json").read_text())
    metrics = tuple(
        Metric(m["name"], m.get("label") or m["name"])
        for m in sorted(manifest["metrics"], key=lambda m: m["name"])
    )
    return SemanticLayer(home=home, root=root, metrics=metrics)


def semantic_layer_lines(layer: SemanticLayer) -> list[str]:
    """What `gpuledger metrics` prints: the metrics and how to query them."""
    width = max(len(m.name) for m in layer.metrics)
    return [
        f"semantic layer: {len(layer.metrics)} metrics over {served_path(layer.home)}, "
        f"parsed into {layer.root}",
        *(f"  {m.name:{width}s}  {m.label}" for m in layer.metrics),
        "query them with MetricFlow:",
        "  "
        + layer.mf_command(
            "query --metrics allocated_gpu_hours,total_charge --group-by tenant,metric_time__month"
        ),
    ]
