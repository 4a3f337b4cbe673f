"""A reader process, as a BI tool would be, for tests/e2e/test_serving.py.

    python reader.py MODE HOME STOP OUT [PERIOD]

Every ~0.2 s until the file STOP exists, then once more, it queries, and finally writes its
observations to OUT as JSON (one per query: time, ok, error, what it saw). A file OUT.ready
appears after the first query. MODE:
- `held`: one read-only connection to <HOME>/serving/marts.duckdb, open the whole time;
- `reopen`: a new connection per query (gpuledger.core.serving.connect_served);
- `report`: `gpuledger report --period PERIOD` (the CLI's main) per query;
- `warehouse`: holds <HOME>/warehouse.duckdb open read-only and only waits (the misconfigured
  BI tool the pipeline names when it cannot write).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
from pathlib import Path

import duckdb

from gpuledger.cli import main
from gpuledger.core.home import served_path, warehouse_path
from gpuledger.core.serving import connect_served

CHARGEBACK = (
    "select period, status, coalesce(close_id, '') as close_id, count(*) as lines "
    "from marts.fact_chargeback group by all order by all"
)
SHOWBACK = "select count(*) from marts.fact_showback"


def _seen(con: duckdb.DuckDBPyConnection) -> dict[str, object]:
    return {
        "chargeback": [list(row) for row in con.execute(CHARGEBACK).fetchall()],
        "showback_rows": con.execute(SHOWBACK).fetchone()[0],
    }


def _report(home: Path, period: str) -> dict[str, object]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--home", str(home), "report", "--period", period])
    if code != 0:
        raise RuntimeError(f"exit {code}: {err.getvalue().strip()}")
    return {"title": out.getvalue().splitlines()[0]}


def run(mode: str, home: Path, stop: Path, out: Path, period: str) -> None:
    if mode == "warehouse":
        with duckdb.connect(str(warehouse_path(home)), read_only=True):
            out.with_suffix(".ready").touch()
            while not stop.exists():
                time.sleep(0.1)
        return
    held = duckdb.connect(str(served_path(home)), read_only=True) if mode == "held" else None
    observations = []
    while True:
        last = stop.exists()
        observed: dict[str, object] = {"t": time.time(), "ok": True}
        try:
            if held is not None:
                observed |= _seen(held)
            elif mode == "reopen":
                with connect_served(home) as con:
                    observed |= _seen(con)
            else:
                observed |= _report(home, period)
        except Exception as exc:  # a failed query is what the test counts
            observed |= {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        observations.append(observed)
        out.with_suffix(".ready").touch()
        if last:
            break
        time.sleep(0.2)
    out.write_text(json.dumps(observations))


if __name__ == "__main__":
    mode, home, stop, out, *rest = sys.argv[1:]
    run(mode, Path(home), Path(stop), Path(out), rest[0] if rest else "")
