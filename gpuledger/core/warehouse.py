"""The warehouse runner: snapshot the policy, run dbt against a home, read the warehouse.

A build is the Dagster `provisional_build` job (orchestration), whose dbt step calls `prepare`
and runs BUILD_ARGS; `run_dbt` is for the small refreshes a ledger write needs afterwards (the
marts that read the ledger). `connect` opens `warehouse.duckdb` for the pipeline's own reads
and writes, under the home lock. Readers outside the pipeline read the served copy
(gpuledger.core.serving).

DuckDB lets one process write a file, or any number read it. A process outside the pipeline
that opens `warehouse.duckdb` (a BI tool pointed at the wrong file) would make dbt fail at once,
so a writer first waits for the file (`await_warehouse`, up to GPULEDGER_LOCK_WAIT_SECONDS,
default 60) and then fails with WarehouseLocked: one line naming the process that holds it,
parsed from DuckDB's lock error, which is also recognised in dbt's output.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from extractors.rawstore import ensure_layout
from gpuledger.core.home import PROJECT_DIR, served_path, warehouse_path
from gpuledger.core.policy import Policy, load_policy


class BuildError(RuntimeError):
    """A build or close failed: the message lists each failing dbt node and dbt's reason, or
    the step that failed and why."""


class WarehouseLocked(BuildError):
    """Another process held warehouse.duckdb past the wait: one line naming it."""


# DuckDB: Could not set lock on file "<path>": Conflicting lock is held in <exe> (PID <pid>)
LOCK_ERROR = re.compile(
    r'Could not set lock on file "(?P<path>[^"]+)": '
    r"Conflicting lock is held in (?P<program>.*?) \(PID (?P<pid>\d+)\)"
)
LOCK_WAIT_VARIABLE = "GPULEDGER_LOCK_WAIT_SECONDS"
DEFAULT_LOCK_WAIT_SECONDS = 60.0


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


# The project's own parse (orchestration.project.prepare_manifest), under PARSE_LOCK: its
# partial_parse.msgpack seeds the target of a home that has none yet
PARSE_DIR = PROJECT_DIR / "target" / "dagster-parse"
PARSE_LOCK = PARSE_DIR / ".lock"
PARTIAL_PARSE = "partial_parse.msgpack"


def seed_partial_parse(target: Path) -> None:
    """Give a home's first dbt command the project's partial parse, so that it re-reads only
    the files that changed since: `dbt parse` of a new home took 5.7 s here, against 7.6 s
    for every file (tests/test_dbt_child.py holds the reuse). dbt runs inside the home
    (gpuledger.core.dbt_child) and names the home nowhere it hashes except the ledger's
    validation source, the one file it parses again. A copy dbt cannot read only costs it a
    full parse."""
    seed = PARSE_DIR / PARTIAL_PARSE
    if (target / PARTIAL_PARSE).exists() or not seed.exists():
        return
    target.mkdir(parents=True, exist_ok=True)
    staged = target / f"{PARTIAL_PARSE}.{secrets.token_hex(4)}.tmp"
    with PARSE_LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_SH)
        shutil.copyfile(seed, staged)
    staged.replace(target / PARTIAL_PARSE)


def dbt_environment(home: Path) -> dict[str, str]:
    """The variables every dbt run of `home` gets: its home, no usage statistics, and dbt's
    file log (`<target>/dbt.log`) at info, one line per node and every error, unless
    DBT_LOG_LEVEL_FILE says otherwise. At debug, dbt's default, it also writes every statement
    it sends: about 12% of a small build's dbt time (`benchmarks/results.md`)."""
    return {
        "GPULEDGER_HOME": str(home),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DBT_LOG_LEVEL_FILE": os.environ.get("DBT_LOG_LEVEL_FILE") or "info",
    }


def dbt_executable() -> str:
    """dbt as a child that dies with its parent (gpuledger-dbt, beside this interpreter)."""
    beside = Path(sys.executable).parent
    for name in ("gpuledger-dbt", "dbt"):
        if (beside / name).exists():
            return str(beside / name)
    return shutil.which("dbt") or "dbt"


def run_dbt(
    home: Path,
    args: Sequence[str],
    environment: Mapping[str, str] | None = None,
    on_line: Callable[[str], None] | None = None,
) -> BuildSummary:
    """Run one dbt command against `home` in a subprocess (dbt holds the DuckDB file open
    for its whole process), with `environment` added to its variables; raise BuildError
    naming each failing node on failure. `on_line` is handed each line dbt writes as it
    writes it (under --quiet: its errors and the models' print() lines)."""
    target = dbt_target(home)
    env = {**os.environ, **dbt_environment(home), **(environment or {})}
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
    seed_partial_parse(target)
    await_warehouse(home)
    if on_line is None:
        completed = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        returncode, output = completed.returncode, completed.stdout + completed.stderr
    else:
        lines: list[str] = []
        with subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        ) as child:
            assert child.stdout is not None
            for line in child.stdout:
                lines.append(line)
                on_line(line.rstrip("\n"))
        returncode, output = child.returncode, "".join(lines)
    if returncode != 0:
        raise build_error(args[0], target, output.strip())
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
    """A failed dbt command: WarehouseLocked when dbt met another process's lock on the
    warehouse, else each failing node and dbt's reason, else the tail of its output."""
    locked = LOCK_ERROR.search(output)
    if locked:
        return _locked(locked, waited=0.0)
    problems = [
        f"  {node['unique_id']}: {node.get('message')}"
        for node in _results(target)
        if node["status"] in ("error", "fail")
    ]
    detail = "\n".join(problems) or output[-4000:]
    return BuildError(f"dbt {command} failed ({summarize(target)}):\n{detail}")


# The production build: every model and data test (unit tests run in CI, `make test`).
BUILD_ARGS = ("build", "--exclude-resource-type", "unit_test")


def lock_wait_seconds() -> float:
    """How long a pipeline step waits for another process to release warehouse.duckdb."""
    value = os.environ.get(LOCK_WAIT_VARIABLE, "")
    if not value.strip():
        return DEFAULT_LOCK_WAIT_SECONDS
    try:
        return max(float(value), 0.0)
    except ValueError:
        raise BuildError(f"{LOCK_WAIT_VARIABLE}={value!r} is not a number of seconds") from None


def _command_line(pid: int, program: str) -> str:
    """The holder's command line (/proc/<pid>/cmdline), else the program DuckDB named."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return program
    words = [w.decode(errors="replace") for w in raw.split(b"\0") if w]
    line = " ".join([Path(words[0]).name, *words[1:]]) if words else program
    return line if len(line) <= 120 else line[:117] + "..."


def _locked(found: re.Match[str], waited: float) -> WarehouseLocked:
    path = Path(found["path"])
    pid = int(found["pid"])
    served = served_path(path.parent)
    after = f" (waited {waited:.0f} s)" if waited else ""
    return WarehouseLocked(
        f"{path} is held by process {pid} ({_command_line(pid, found['program'])}){after} — "
        f"close it or point it at {served}"
    )


# Set on every connection that writes warehouse.duckdb, as dbt's profile sets it
# (profiles.yml). DuckDB's checkpoint merges ("vacuums") a row group that lost rows with the
# row groups after it, and so writes those again. A model built by period deletes the periods
# it computes, which share a row group with the frozen ones where they meet, and appends their
# new rows after it: the merge then wrote every new row a second time, about a second a model
# on a 4,096-GPU fleet, while dbt's other thread waited on the checkpoint (benchmarks/
# results.md, "The checkpoint's merges"). Without merges a row group keeps the space of its
# deleted rows: at most the one where a deleted range meets a kept one, per replacement; a
# row group whose rows are all deleted is still dropped. `connect` sets them on reading
# connections too: one may attach a file it writes (the served copy, serving._copy_marts,
# made from such tables, would have the same merges at its checkpoint).
WRITE_SETTINGS = {"max_vacuum_tasks": 0}


def connect(home: Path, *, read_only: bool = True) -> duckdb.DuckDBPyConnection:
    """A connection to warehouse.duckdb; while another process holds a conflicting lock on
    it, retry with backoff up to lock_wait_seconds(), then raise WarehouseLocked. Every
    connection gets WRITE_SETTINGS."""
    path = warehouse_path(home)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no warehouse yet; run `gpuledger build` first")
    wait = lock_wait_seconds()
    started = time.monotonic()
    pause = 0.1
    while True:
        try:
            con = duckdb.connect(str(path), read_only=read_only)
            for name, value in WRITE_SETTINGS.items():
                con.execute(f"set {name} = {value}")
            return con
        except duckdb.IOException as exc:
            found = LOCK_ERROR.search(str(exc))
            waited = time.monotonic() - started
            if found is None:
                raise
            if waited >= wait:
                raise _locked(found, waited) from None
            time.sleep(min(pause, wait - waited))
            pause = min(pause * 2, 2.0)


def await_warehouse(home: Path) -> None:
    """Before dbt starts: wait until this process could write warehouse.duckdb (no other
    process holds it), or raise WarehouseLocked. A home without a warehouse has no holder."""
    if warehouse_path(home).exists():
        connect(home, read_only=False).close()


def has_relation(con: duckdb.DuckDBPyConnection, schema: str, name: str) -> bool:
    """Whether the warehouse has the table or view `schema.name`."""
    found = con.execute(
        "select count(*) from information_schema.tables where table_schema = ? and table_name = ?",
        [schema, name],
    ).fetchone()
    return bool(found and found[0])
