"""The warehouse runner: snapshot the policy, run dbt against a home, read the warehouse.

A build is the Dagster `provisional_build` job (orchestration), whose dbt step calls `prepare`
and runs BUILD_ARGS; `run_dbt` is for the small refreshes a ledger write needs afterwards (the
marts that read the ledger). `connect` and `query` read `warehouse.duckdb`.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from extractors.landing import ensure_layout
from gpuledger.core.home import PROJECT_DIR, warehouse_path
from gpuledger.core.policy import Policy, load_policy


class BuildError(RuntimeError):
    """A build or close failed: the message lists each failing dbt node and dbt's reason, or
    the step that failed and why."""


@dataclass(frozen=True)
class BuildSummary:
    passed: int
    warned: int
    failed: int
    skipped: int

    def __str__(self) -> str:
        return (
            f"dbt build: {self.passed} passed, {self.warned} warned, "
            f"{self.failed} failed, {self.skipped} skipped"
        )


def prepare(home: Path, policy_dir: Path) -> Policy:
    """Validate the policy and write the snapshot, raw layout and secrets dbt reads."""
    policy = load_policy(policy_dir)
    home.mkdir(parents=True, exist_ok=True)
    ensure_layout(home)
    policy.write_snapshot(home / "policy")
    ensure_personal_data_salt(home)
    return policy


def personal_data_salt_path(home: Path) -> Path:
    return home / "secrets" / "personal_data_salt.csv"


def ensure_personal_data_salt(home: Path) -> Path:
    """The home's salt of hashed user and job names (dbt source secrets.personal_data_salt):
    64 random hex digits, created once, readable by the owner only, never rewritten, so a
    name hashes the same in every build of the home and a list of names hashed without the
    salt matches none. Written beside and linked into place, so it is whole or absent."""
    path = personal_data_salt_path(home)
    if path.exists():
        return path
    path.parent.mkdir(mode=0o700, exist_ok=True)
    draft = path.with_name(f".{path.name}.{os.getpid()}")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as out:
        out.write(f"salt\n{secrets.token_hex(32)}\n")
    try:
        os.link(draft, path)
    except FileExistsError:
        pass  # another build created it first: that salt stands
    finally:
        draft.unlink()
    return path


def dbt_target(home: Path) -> Path:
    """Where the builds of a home keep dbt's artifacts (run_results.json, partial parse)."""
    return home / "dbt" / "target"


def dbt_executable() -> str:
    """dbt as a child that dies with its parent (gpuledger-dbt, beside this interpreter)."""
    beside = Path(sys.executable).parent
    for name in ("gpuledger-dbt", "dbt"):
        if (beside / name).exists():
            return str(beside / name)
    return shutil.which("dbt") or "dbt"


def run_dbt(home: Path, args: Sequence[str]) -> BuildSummary:
    """Run one dbt command against `home` in a subprocess (dbt holds the DuckDB file open
    for its whole process); raise BuildError naming each failing node on failure."""
    target = dbt_target(home)
    env = {**os.environ, "GPULEDGER_HOME": str(home), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    command = [
        dbt_executable(),
        *args,
        "--project-dir",
        str(PROJECT_DIR),
        "--profiles-dir",
        str(PROJECT_DIR),
        "--target-path",
        str(target),
        "--log-path",
        str(home / "dbt" / "logs"),
        "--quiet",
    ]
    (target / "run_results.json").unlink(missing_ok=True)
    completed = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        output = (completed.stdout + completed.stderr).strip()
        raise build_error(args[0], target, output)
    return summarize(target)


def _results(target: Path) -> list[dict]:
    path = target / "run_results.json"
    return json.loads(path.read_text())["results"] if path.exists() else []


def summarize(target: Path) -> BuildSummary:
    """Count the node statuses of the last dbt command's run_results.json in `target`."""
    counts: dict[str, int] = {}
    for node in _results(target):
        counts[node["status"]] = counts.get(node["status"], 0) + 1
    return BuildSummary(
        passed=counts.get("pass", 0) + counts.get("success", 0),
        warned=counts.get("warn", 0),
        failed=counts.get("error", 0) + counts.get("fail", 0),
        skipped=counts.get("skipped", 0),
    )


def build_error(command: str, target: Path, output: str) -> BuildError:
    """A failed dbt command: each failing node and dbt's reason, else the tail of its output."""
    problems = [
        f"  {node['unique_id']}: {node.get('message')}"
        for node in _results(target)
        if node["status"] in ("error", "fail")
    ]
    detail = "\n".join(problems) or output[-4000:]
    return BuildError(f"dbt {command} failed ({summarize(target)}):\n{detail}")


# The production build: every model and data test (unit tests run in CI, `make test`).
BUILD_ARGS = ("build", "--exclude-resource-type", "unit_test")


def connect(home: Path, *, read_only: bool = True) -> duckdb.DuckDBPyConnection:
    path = warehouse_path(home)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no warehouse yet; run `gpuledger build` first")
    return duckdb.connect(str(path), read_only=read_only)


def query(home: Path, sql: str, params: Sequence[object] = ()) -> list[dict[str, object]]:
    with connect(home) as con:
        cursor = con.execute(sql, list(params))
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def has_relation(con: duckdb.DuckDBPyConnection, schema: str, name: str) -> bool:
    """Whether the warehouse has the table or view `schema.name`."""
    found = con.execute(
        "select count(*) from information_schema.tables where table_schema = ? and table_name = ?",
        [schema, name],
    ).fetchone()
    return bool(found and found[0])
