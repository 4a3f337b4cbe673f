"""`make ui`: the Dagster UI (`dagster dev`) on 127.0.0.1 over a GPU Ledger home.

    GPULEDGER_HOME=DIR python -m orchestration.ui [--port 3000]

DAGSTER_HOME defaults to `<home>/dagster` (orchestration.instance), the instance the CLI
records its builds, closes and reopens in, so the UI shows them in its run history. SIGINT
and SIGTERM are reset to their defaults before this process becomes `dagster dev`: started
in the background from a script, it would otherwise inherit them as ignored and never stop
(stack-probe P10); `kill -INT <pid>` stops the webserver, the daemon and the code servers.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

from gpuledger.core.home import resolve_home
from orchestration.instance import dagster_home

LOCATION_MODULE = "orchestration.definitions"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m orchestration.ui")
    parser.add_argument("--port", type=int, default=3000)
    args = parser.parse_args(argv)
    home = resolve_home(None)
    os.environ["DAGSTER_HOME"] = str(dagster_home(home))
    os.environ["GPULEDGER_HOME"] = str(home)
    print(f"GPU Ledger UI on http://127.0.0.1:{args.port} (home {home})", flush=True)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    dagster = str(Path(sys.executable).parent / "dagster")
    os.execv(
        dagster,
        [dagster, "dev", "-m", LOCATION_MODULE, "-h", "127.0.0.1", "-p", str(args.port)],
    )


if __name__ == "__main__":
    main()
