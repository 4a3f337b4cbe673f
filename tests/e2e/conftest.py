"""The demo month, generated, landed and closed once per test session (`run_demo`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuledger.core.home import DEMO_POLICY_DIR
from gpuledger.demo import run_demo


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
