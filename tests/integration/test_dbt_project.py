"""The dbt project's own checks that a production build leaves out: every unit test, then the
docs (models, semantic models, metrics, exposures). `make dbt-test` runs the same by hand over a
demo month of its own; here they run over a copy of the session's demo home, whose close has
already built every model and run every data test and contract (tests/conftest.py).

A copy, so that the session's demo home stays as its close left it for the other tests."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpuledger.core import incremental

REPO = Path(__file__).resolve().parents[2]
DBT = Path(sys.executable).with_name("dbt")


def _dbt(home: Path, *args: str) -> str:
    """dbt (DuckDB target) over `home`, as `make dbt-test` runs it; its output."""
    env = {**os.environ, "GPULEDGER_HOME": str(home), "DBT_LOG_LEVEL_FILE": "info"}
    env.update(incremental.window(home).environment())
    result = subprocess.run(
        [
            str(DBT),
            *args,
            "--project-dir",
            str(REPO),
            "--profiles-dir",
            str(REPO),
            "--target-path",
            str(home / "dbt" / "target"),
            "--log-path",
            str(home / "dbt" / "logs"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-5000:]
    return result.stdout + result.stderr


@pytest.fixture(scope="module")
def home(demo_home: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    source, _ = demo_home
    copy = tmp_path_factory.mktemp("dbt-project") / "home"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("spark"))
    return copy


def test_every_unit_test_passes(home: Path) -> None:
    output = _dbt(home, "test", "--select", "test_type:unit")
    done = re.search(r"Done\. PASS=(\d+) WARN=(\d+) ERROR=(\d+) SKIP=(\d+)", output)
    assert done, output[-5000:]
    passed, warned, errors, skipped = map(int, done.groups())
    print(f"\ndbt test --select test_type:unit: PASS={passed} WARN={warned} ERROR={errors}")
    manifest = json.loads((home / "dbt" / "target" / "manifest.json").read_text())
    unit_tests = len(manifest["unit_tests"])
    # PASS counts the project's on-run-start and on-run-end hooks too
    passed_units = set(re.findall(r"\d+ of \d+ PASS (\S+::\S+)", output))
    assert len(passed_units) == unit_tests > 100, output[-5000:]
    assert passed >= unit_tests and (warned, errors, skipped) == (0, 0, 0), output[-5000:]


def test_docs_generate_every_model_metric_and_exposure(home: Path) -> None:
    _dbt(home, "docs", "generate")
    target = home / "dbt" / "target"
    manifest = json.loads((target / "manifest.json").read_text())
    catalog = json.loads((target / "catalog.json").read_text())
    built = {
        key
        for key, node in manifest["nodes"].items()
        if node["resource_type"] == "model" and node["config"]["materialized"] != "ephemeral"
    }
    assert built and built <= set(catalog["nodes"]), sorted(built - set(catalog["nodes"]))
    assert len(manifest["semantic_models"]) >= 4
    assert len(manifest["metrics"]) >= 18
    assert len(manifest["exposures"]) >= 4
    assert (target / "index.html").is_file()
