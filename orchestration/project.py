"""The dbt project as Dagster sees it, and the manifest `@dbt_assets` reads at import time.

`DbtProject.prepare_if_dev()` only parses under `dagster dev`, and dagster-dbt's preparer
looks for `dbt` on PATH. So `prepare_manifest()` parses the project itself, with the dbt next
to this interpreter, whenever the manifest is missing or older than any project file. It
parses in `target/dagster-parse/` (keeping dbt's partial parse) under a file lock, then moves
the manifest atomically to `target/dagster/manifest.json`, so concurrent imports never read a
half-written one.
"""

from __future__ import annotations

import fcntl
import importlib.metadata
import os
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from functools import cached_property
from pathlib import Path

from dagster_dbt import DbtCliResource, DbtProject
from packaging import version

from gpuledger.core.home import PROJECT_DIR
from gpuledger.core.warehouse import PARSE_DIR, PARSE_LOCK, dbt_executable

MANIFEST_DIR = PROJECT_DIR / "target" / "dagster"
PROJECT_FOLDERS = ("models", "macros", "seeds", "tests/dbt")
PROJECT_FILES = ("dbt_project.yml", "profiles.yml")


class ManifestError(RuntimeError):
    """dbt could not parse the project; the message carries dbt's output."""


def _project_files() -> Iterator[Path]:
    for name in PROJECT_FILES:
        yield PROJECT_DIR / name
    for folder in PROJECT_FOLDERS:
        for path in (PROJECT_DIR / folder).rglob("*"):
            if path.suffix in (".sql", ".yml", ".yaml", ".csv", ".md"):
                yield path


def _is_fresh(manifest: Path) -> bool:
    if not manifest.exists():
        return False
    built = manifest.stat().st_mtime
    return all(path.stat().st_mtime <= built for path in _project_files())


def prepare_manifest() -> Path:
    """The path of an up-to-date manifest.json, parsing the project if needed (~3-4 s)."""
    manifest = MANIFEST_DIR / "manifest.json"
    if _is_fresh(manifest):
        return manifest
    PARSE_DIR.mkdir(parents=True, exist_ok=True)
    with PARSE_LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _is_fresh(manifest):
            return manifest
        completed = subprocess.run(
            [
                dbt_executable(),
                "parse",
                "--project-dir",
                str(PROJECT_DIR),
                "--profiles-dir",
                str(PROJECT_DIR),
                "--target-path",
                str(PARSE_DIR),
                "--log-path",
                str(PARSE_DIR / "logs"),
                "--quiet",
            ],
            # a home of its own, so that no parse leaves a `.gpuledger` where it was started
            env={
                **os.environ,
                "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
                "GPULEDGER_HOME": str(PARSE_DIR / "home"),
            },
            capture_output=True,
            text=True,
            check=False,
        )
        if completed.returncode != 0:
            output = (completed.stdout + completed.stderr).strip()
            raise ManifestError(f"dbt parse failed:\n{output[-4000:]}")
        MANIFEST_DIR.mkdir(parents=True, exist_ok=True)
        staged = MANIFEST_DIR / "manifest.json.tmp"
        shutil.copyfile(PARSE_DIR / "manifest.json", staged)
        staged.replace(manifest)
    return manifest


dbt_project = DbtProject(project_dir=PROJECT_DIR, target_path=MANIFEST_DIR)


class LedgerDbtCli(DbtCliResource):
    """dagster-dbt's resource running the dbt beside this interpreter (gpuledger-dbt). It
    knows that dbt's version from the installed dbt-core instead of starting `dbt --version`
    on every run (2-4 s of each build and close), and opens no dbt adapter in this process:
    dagster-dbt's `cli` loads the profile, the project and every macro to hand the invocation
    an adapter that only `fetch_column_metadata` and `fetch_row_counts` use, which the
    warehouse asset never calls (about 6 s of each build, before dbt starts)."""

    @cached_property
    def _cli_version(self) -> version.Version:
        return version.parse(importlib.metadata.version("dbt-core"))

    def _initialize_dbt_core_adapter(self, args: Sequence[str]) -> None:
        return None


def dbt_resource() -> DbtCliResource:
    return LedgerDbtCli(project_dir=dbt_project, dbt_executable=dbt_executable())
