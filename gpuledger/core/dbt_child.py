"""`gpuledger-dbt`: dbt as a child that dies with its parent.

Builds and closes run dbt in a subprocess (it holds warehouse.duckdb for its whole run). Killed
with -9, a CLI cannot stop that child, which would then hold the database and fail the next
run on the lock. This entry point asks the kernel to kill it when its parent dies
(PR_SET_PDEATHSIG, which survives the exec) and then becomes dbt.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from pathlib import Path

PR_SET_PDEATHSIG = 1


def main() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() == 1:  # the parent died before the kernel could be asked
        sys.exit(1)
    dbt = Path(sys.executable).parent / "dbt"
    os.execv(str(dbt), [str(dbt), *sys.argv[1:]])


if __name__ == "__main__":
    main()
