"""Developer entry points used by the Makefile (not part of the user-facing CLI)."""

from __future__ import annotations

import sys
from pathlib import Path

from gpuledger.core.home import DEMO_POLICY_DIR
from gpuledger.core.warehouse import prepare


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "prepare-home":
        # A home with the demo policy snapshot and empty raw tables: enough for dbt to
        # compile and for sqlfluff's dbt templater to render every model.
        prepare(Path(argv[1]).resolve(), DEMO_POLICY_DIR)
        return 0
    print("usage: python -m gpuledger.devtools prepare-home DIR", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
