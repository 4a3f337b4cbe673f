"""gpuledger-dbt runs dbt inside the home, so that a home's first dbt command reuses the
project's partial parse (gpuledger.core.dbt_child, gpuledger.core.warehouse)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuledger.core.dbt_child import in_home
from gpuledger.core.warehouse import dbt_target, run_dbt
from orchestration.project import prepare_manifest


def test_in_home_resolves_paths_from_where_dbt_was_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = tmp_path / "repo"
    started.mkdir()
    monkeypatch.chdir(started)
    environ = {"GPULEDGER_HOME": "homes/a", "DBT_TARGET_PATH": "t"}
    args = in_home(
        ["build", "--target-path", "out", "--log-path", "/abs/logs", "--state=st", "-s", "x"],
        environ,
    )
    home = started / "homes" / "a"
    assert Path.cwd() == home
    assert environ["GPULEDGER_HOME"] == str(home)
    assert args == [
        "build",
        "--target-path",
        str(started / "out"),
        "--log-path",
        "/abs/logs",
        f"--state={started / 'st'}",
        "-s",
        "x",
    ]
    # no project or profiles directory named: the one it started in
    assert environ["DBT_PROJECT_DIR"] == environ["DBT_PROFILES_DIR"] == str(started)
    assert environ["DBT_TARGET_PATH"] == str(started / "t")


def test_in_home_without_a_home_uses_the_default_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    environ: dict[str, str] = {"DBT_PROFILES_DIR": "/profiles"}
    assert in_home(["parse", "--project-dir=p"], environ) == [
        "parse",
        f"--project-dir={tmp_path / 'p'}",
    ]
    assert Path.cwd() == tmp_path / ".gpuledger"
    assert environ["DBT_PROFILES_DIR"] == "/profiles"
    assert "DBT_PROJECT_DIR" not in environ


def test_a_new_homes_first_dbt_command_reuses_the_projects_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prepare_manifest()
    monkeypatch.setenv("DBT_LOG_LEVEL_FILE", "debug")
    for name in ("one", "two"):
        home = tmp_path / name
        run_dbt(home, ["parse"])
        log = (home / "dbt" / "logs" / "dbt.log").read_text()
        assert "Unable to do partial parsing" not in log, name
        # every home names its own path only in the ledger's validation source
        assert "Partial parsing enabled: 0 files deleted, 0 files added, 1 files changed." in log
        assert (dbt_target(home) / "manifest.json").exists()
