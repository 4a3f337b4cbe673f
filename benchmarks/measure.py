"""Run one command and write its wall time and peak RSS to a JSON file:

    python -m benchmarks.measure OUT.json -- COMMAND ...

The peak is that of the command's process tree (the largest resident set of the command and
of each process it waited for: `getrusage(RUSAGE_CHILDREN)`). A small process of its own
launches it because Linux carries a process's resident high-water mark across exec: a
command forked from the benchmark itself (which holds its generators and readers) would
report at least the benchmark's size.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    out, separator, command = argv[0], argv[1], argv[2:]
    if separator != "--" or not command:
        print(__doc__, file=sys.stderr)
        return 2
    started = time.perf_counter()
    code = subprocess.call(command)
    seconds = time.perf_counter() - started
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    Path(out).write_text(json.dumps({"seconds": seconds, "peak_rss_kib": peak_kib}))
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
