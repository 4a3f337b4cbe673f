"""`gpuledger-dbt`: dbt as a child that dies with its parent.

Builds and closes run dbt in a subprocess (it holds warehouse.duckdb for its whole run). Killed
with -9, a CLI cannot stop that child, which would then hold the database and fail the next
run on the lock. This entry point asks the kernel to kill it when its parent dies
(PR_SET_PDEATHSIG, which survives the exec) and then becomes dbt.

dbt runs inside the home (`$GPULEDGER_HOME`): profiles.yml and the sources name the warehouse
and the landed files relative to it, so that nothing dbt hashes for partial parsing (the
profile's connection, the sources' rendered locations) differs from one home to the next, and a
home's first dbt command reuses the project's partial parse (core.warehouse.seed_partial_parse)
instead of parsing every file again. The project and profiles directories stay the caller's
working directory unless named.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import MutableMapping
from pathlib import Path

from gpuledger.core.home import DEFAULT_HOME

PR_SET_PDEATHSIG = 1


def main() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() == 1:  # the parent died before the kernel could be asked
        sys.exit(1)
    dbt = Path(sys.executable).parent / "dbt"
    os.execv(str(dbt), [str(dbt), *in_home(sys.argv[1:], os.environ)])


# dbt's options that name a path: resolved against the working directory dbt was started in
PATH_OPTIONS = ("--project-dir", "--profiles-dir", "--target-path", "--log-path", "--state")


def in_home(args: list[str], environ: MutableMapping[str, str]) -> list[str]:
    """Move this process into the home ($GPULEDGER_HOME, made absolute in `environ`) and
    return dbt's arguments as they read from there: the paths they name made absolute, and
    the project and profiles directories, unless given, the directory it started in."""
    started = Path.cwd()
    resolved = list(args)
    for index, word in enumerate(resolved):
        option, equals, value = word.partition("=")
        if option not in PATH_OPTIONS:
            continue
        if equals:  # --target-path=DIR
            resolved[index] = f"{option}={started / value}"
        elif index + 1 < len(resolved):
            resolved[index + 1] = str(started / resolved[index + 1])
    named = {word.partition("=")[0] for word in resolved}
    for flag, variable in (
        ("--project-dir", "DBT_PROJECT_DIR"),
        ("--profiles-dir", "DBT_PROFILES_DIR"),
    ):
        if flag in named:
            continue
        environ[variable] = (
            str(started / environ[variable]) if environ.get(variable) else str(started)
        )
    for variable in ("DBT_TARGET_PATH", "DBT_LOG_PATH"):
        if environ.get(variable):
            environ[variable] = str(started / environ[variable])
    home = started / (environ.get("GPULEDGER_HOME") or DEFAULT_HOME)
    home.mkdir(parents=True, exist_ok=True)
    environ["GPULEDGER_HOME"] = str(home)
    os.chdir(home)
    return resolved


if __name__ == "__main__":
    main()
