"""The demo month, generated, landed and closed once per test session (`run_demo`); a small
home whose April holds a Correction of March; and their FOCUS exports."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuledger.core.home import DEMO_POLICY_DIR
from gpuledger.demo import run_demo
from tests.e2e.focus import Export, correction_story, export


@pytest.fixture(scope="session")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The demo's home and what it printed."""
    home = tmp_path_factory.mktemp("demo") / "home"
    home.mkdir()
    printed: list[str] = []
    exit_code = run_demo(home, DEMO_POLICY_DIR, "2026-10", 7, out=printed.append)
    stdout = "\n".join(printed) + "\n"
    assert exit_code == 0, stdout
    return home, stdout


@pytest.fixture(scope="session")
def correction_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """March closed, late March evidence, April closed with the Correction (tests/e2e/focus.py)."""
    return correction_story(tmp_path_factory.mktemp("correction"))


@pytest.fixture(scope="session")
def focus_exports(
    demo_home: tuple[Path, str], correction_home: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Export]:
    """`gpuledger export --format focus` of the demo's closed October and of the April that
    corrects March."""
    out = tmp_path_factory.mktemp("focus")
    exports = {}
    for name, home, period in (
        ("october", demo_home[0], "2026-10"),
        ("april", correction_home, "2026-04"),
    ):
        path = out / f"{name}.csv"
        exports[name] = Export(name, home, period, path, export(home, period, "focus", path))
    return exports
