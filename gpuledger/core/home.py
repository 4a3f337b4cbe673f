"""Where things live: the repository's dbt project, a deployment's home and policy, and the
home lock.

The home lock serializes the writers of the warehouse (`warehouse.duckdb` has one writer):
builds, closes, reopens and the validation of landed batches. Landing raw batches takes the
raw store's own lock (extractors.rawstore.raw_store_lock); a build holds that one shared while
dbt reads the raw tables, so no batch lands half-way through what one build sees. Readers
take neither: they read the served copy of the marts (gpuledger.core.serving), which only
the writers, under the home lock, replace.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]
DEMO_POLICY_DIR = PROJECT_DIR / "policy" / "demo"
# the home when neither --home nor $GPULEDGER_HOME names one (relative to the working directory)
DEFAULT_HOME = ".gpuledger"


def resolve_home(value: str | None) -> Path:
    return Path(value or os.environ.get("GPULEDGER_HOME") or DEFAULT_HOME).resolve()


def resolve_policy(value: str | None) -> Path:
    return Path(value or os.environ.get("GPULEDGER_POLICY") or DEMO_POLICY_DIR).resolve()


def warehouse_path(home: Path) -> Path:
    return home / "warehouse.duckdb"


def serving_dir(home: Path) -> Path:
    """The served copy of the marts, for readers (gpuledger.core.serving)."""
    return home / "serving"


def served_path(home: Path) -> Path:
    return serving_dir(home) / "marts.duckdb"


@contextmanager
def home_lock(home: Path) -> Iterator[None]:
    """One warehouse writer at a time per home (build, close, reopen, validation)."""
    home.mkdir(parents=True, exist_ok=True)
    with (home / ".lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
