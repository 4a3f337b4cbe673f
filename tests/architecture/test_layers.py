"""Layers point down only, and no import circle: application (CLI, report, demo) ->
orchestration (Dagster) -> core (home and lock, policy, warehouse runner, ledger, close gate)
-> extractors. The core imports neither Dagster nor argparse; extractors import nothing above
them."""

from __future__ import annotations

import pytest

from tests.architecture.imports import cycles, graph, layer_violations, module_sources


def test_no_module_imports_a_layer_above_its_own() -> None:
    assert [str(v) for v in layer_violations(module_sources())] == []


def test_no_import_circle() -> None:
    assert cycles(graph(module_sources())) == []


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        (
            "gpuledger.core.gate",
            "def f():\n    from orchestration.runner import run_close\n",
            "gpuledger.core.gate imports orchestration.runner: orchestration is above core",
        ),
        (
            "gpuledger.core.gate",
            "import dagster\n",
            "gpuledger.core.gate imports dagster: core never imports it",
        ),
        (
            "gpuledger.core.gate",
            "import argparse\n",
            "gpuledger.core.gate imports argparse: core never imports it",
        ),
        (
            "extractors.slurm.client",
            "from gpuledger.core.home import home_lock\n",
            "extractors.slurm.client imports gpuledger.core.home: core is above extractors",
        ),
        (
            "orchestration.checks",
            "from gpuledger.cli import main\n",
            "orchestration.checks imports gpuledger.cli: application is above orchestration",
        ),
    ],
)
def test_the_rules_catch_an_upward_import(module: str, source: str, expected: str) -> None:
    sources = {
        "gpuledger.cli": "",
        "gpuledger.core.home": "",
        "orchestration.runner": "",
        "orchestration.checks": "",
        "extractors.slurm.client": "",
        module: source,
    }
    assert expected in [str(v) for v in layer_violations(sources)]


def test_a_circle_through_a_function_level_import_is_found() -> None:
    sources = {
        "gpuledger.core.warehouse": "def build():\n    from orchestration.runner import run\n",
        "orchestration.runner": "from gpuledger.core.warehouse import prepare\n",
    }
    assert cycles(graph(sources)) == [["gpuledger.core.warehouse", "orchestration.runner"]]
