"""Named crash points for the kill -9 tests: with GPULEDGER_CRASH_AT=<name> in its
environment, a process kills itself (SIGKILL, as `kill -9` would) when it reaches that point.

The points sit where a crash would hurt most: between the files of a batch and its manifest,
while dbt builds, while the checks run, between the ledger write and the mart refresh, and in
the middle of serving the marts. Unset (always, outside those tests), `reached` does nothing.
"""

from __future__ import annotations

import os
import signal

VARIABLE = "GPULEDGER_CRASH_AT"


def reached(name: str) -> None:
    if os.environ.get(VARIABLE) == name:
        os.kill(os.getpid(), signal.SIGKILL)
