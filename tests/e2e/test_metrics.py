"""The metrics, defined once (models/marts/semantic/), over the demo month: `mf validate-configs`
passes against the served copy, and `mf query` gives fact_showback's figures per tenant.

mf runs as a real second process in `<home>/metricflow/` (`gpuledger metrics`), while this
process holds warehouse.duckdb for writing: it never needs the pipeline's file.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import duckdb
import pytest

from gpuledger.core.home import warehouse_path
from gpuledger.core.serving import query_served
from gpuledger.metrics import SemanticLayer, prepare_semantic_layer, semantic_layer_lines
from tests.conftest import run_cli

MF = Path(sys.executable).parent / "gpuledger-mf"
OCTOBER = "{{ TimeDimension('metric_time', 'month') }} = '2026-10-01'"


@pytest.fixture(scope="module")
def layer(demo_home: tuple[Path, str]) -> SemanticLayer:
    home, _ = demo_home
    return prepare_semantic_layer(home)


@pytest.fixture
def warehouse_held(layer: SemanticLayer) -> Iterator[None]:
    """warehouse.duckdb open for writing here, as a build holds it."""
    with duckdb.connect(str(warehouse_path(layer.home))):
        yield


def _mf(layer: SemanticLayer, *args: str) -> str:
    completed = subprocess.run(
        [str(MF), *args],
        cwd=layer.root,
        env={**os.environ, "GPULEDGER_HOME": str(layer.home)},
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0 and "ERROR:" not in output, output
    return output


def test_the_metrics_are_listed_with_the_mf_command(layer: SemanticLayer) -> None:
    names = {m.name for m in layer.metrics}
    assert {
        "allocated_gpu_hours",
        "reserved_gpu_hours",
        "guaranteed_gpu_hours",
        "borrowed_gpu_hours",
        "active_equivalent_gpu_hours",
        "idle_allocated_gpu_hours",
        "idle_gpu_hours",
        "physical_gpu_hours",
        "total_charge",
        "successful_jobs",
        "cost_per_successful_job",
    } <= names
    lines = semantic_layer_lines(layer)
    expected = f"cd {layer.root} && GPULEDGER_HOME={layer.home} gpuledger-mf query"
    assert lines[-1].strip().startswith(expected)


def test_metrics_before_any_build_says_to_build(tmp_path: Path) -> None:
    result = run_cli(tmp_path / "home", None, "metrics")
    assert result.exit_code == 1
    assert "serving/marts.duckdb: no marts served yet; run `gpuledger build` first" in result.stderr
    assert not (tmp_path / "home" / "metricflow").exists()


def test_mf_validate_configs_passes_on_the_served_copy(
    layer: SemanticLayer, warehouse_held: None
) -> None:
    output = _mf(layer, "validate-configs")
    assert "Successfully validated the semantics of built manifest" in output
    assert "Successfully validated metrics against data warehouse" in output


def test_mf_query_equals_fact_showback(layer: SemanticLayer, warehouse_held: None) -> None:
    out = layer.root / "october.csv"
    metrics = "allocated_gpu_hours,borrowed_gpu_hours,total_charge,cost_per_successful_job"
    _mf(
        layer,
        *("query", "--metrics", metrics, "--group-by", "tenant,metric_time__month"),
        *("--where", OCTOBER, "--order", "tenant", "--csv", str(out), "--quiet"),
    )
    print(f"\nmf query --metrics {metrics} --group-by tenant,metric_time__month:")
    print(out.read_text())
    queried = {row["tenant"]: row for row in csv.DictReader(out.open())}
    showback = {
        row["tenant_id"]: row
        for row in query_served(
            layer.home, "select * from fact_showback where period = '2026-10' order by tenant_id"
        )
    }
    assert set(queried) == set(showback) and len(showback) == 7
    for tenant, row in showback.items():
        got = queried[tenant]
        assert got["metric_time__month"].startswith("2026-10-01"), got
        for hours in ("allocated_gpu_hours", "borrowed_gpu_hours"):
            assert abs(Decimal(got[hours]) - row[hours]) <= Decimal("1e-6"), (tenant, hours)
        assert abs(Decimal(got["total_charge"]) - row["total_charge"]) < Decimal("0.005"), tenant
        if row["cost_per_successful_unit"] is None:
            assert got["cost_per_successful_job"] == "", tenant
        else:
            unit = Decimal(got["cost_per_successful_job"]).quantize(Decimal("0.01"), ROUND_HALF_UP)
            assert unit == row["cost_per_successful_unit"], tenant
