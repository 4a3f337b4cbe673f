"""A small home whose April holds a Correction of March, and the FOCUS exports of it and of
the demo month (tests/conftest.py: demo_home)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.focus import Export, correction_story, export


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
