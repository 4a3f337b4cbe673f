"""The dbt project's own checks that a production build leaves out: every unit test, then the
docs (models, semantic models, metrics, exposures). `make dbt-test` runs the same by hand over a
demo month of its own; here they run over a copy of the session's demo home, whose close has
already built every model and run every data test and contract (tests/conftest.py).

A copy, so that the session's demo home stays as its close left it for the other tests."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gpuledger.core import incremental
from gpuledger.core.warehouse import dbt_target, run_dbt


@pytest.fixture(scope="module")
def home(demo_home: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    source, _ = demo_home
    copy = tmp_path_factory.mktemp("dbt-project") / "home"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("spark"))
    return copy


def test_every_unit_test_passes(home: Path) -> None:
    summary = run_dbt(
        home, ["test", "--select", "test_type:unit"], incremental.window(home).environment()
    )
    print(f"\ndbt test --select test_type:unit: {summary}")
    target = dbt_target(home)
    manifest = json.loads((target / "manifest.json").read_text())
    results = json.loads((target / "run_results.json").read_text())["results"]
    # the results count the project's on-run-start and on-run-end hooks too
    passed_units = {r["unique_id"] for r in results if r["status"] == "pass"}
    assert passed_units == set(manifest["unit_tests"]) and len(passed_units) > 100
    assert (summary.warned, summary.failed, summary.skipped) == (0, 0, 0), summary


def test_docs_generate_every_model_metric_and_exposure(home: Path) -> None:
    run_dbt(home, ["docs", "generate"])
    target = dbt_target(home)
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
