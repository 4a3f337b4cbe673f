"""Hashes of what the warehouse's kept rows were computed from: when one changes, the rows
kept since are another code's or policy's, and a build computes them again.

- `gpuledger.core.incremental.fingerprint`: the telemetry models' SQL and every macro;
- `gpuledger.core.incremental.keyed_fingerprint`: the project's code, the home's policy
  snapshot and secrets;
- `gpuledger.core.period_scope.fingerprint`: the project's code and the policy snapshot.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from gpuledger.core.home import PROJECT_DIR

# what the models compute from besides the landed batches and the home's files
PROJECT_INPUTS = ("models", "macros", "seeds", "dbt_project.yml")


def files_under(root: Path, path: Path) -> list[tuple[str, Path]]:
    """The files at `path` (a file, or a folder's files in order), named from `root`."""
    found = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    return [(p.relative_to(root).as_posix(), p) for p in found if p.exists()]


def digest(named: Iterable[tuple[str, Path]]) -> str:
    """A hash of each file's name and bytes, in order."""
    found = hashlib.sha256()
    for name, path in named:
        found.update(name.encode() + b"\0")
        found.update(path.read_bytes() + b"\0")
    return found.hexdigest()[:16]


def project_and_home(home: Path, folders: Iterable[str]) -> str:
    """A hash of the project's code (PROJECT_INPUTS) and of the home's `folders`."""
    named: list[tuple[str, Path]] = []
    for name in PROJECT_INPUTS:
        named += files_under(PROJECT_DIR, PROJECT_DIR / name)
    for folder in folders:
        named += files_under(home, home / folder)
    return digest(named)
