"""The served copy of the marts: what BI tools and `gpuledger report` read, so that nothing a
reader does can block or break the pipeline (only the pipeline ever opens warehouse.duckdb).

After every build and every ledger refresh (close, reopen) `serve(home)`, under the home lock,
publishes every table and view of the warehouse's `marts` schema (views as tables) to
`<home>/serving/`:

- `marts.duckdb`: one table per mart in the file's main schema, so both `fact_chargeback` and
  `marts.fact_chargeback` (the file's catalog is `marts`) name it, as in the warehouse. It is
  written beside as `.marts-<id>.duckdb`, checkpointed, closed, synced and made read-only,
  then renamed over `marts.duckdb`. A reader that has the file open keeps reading the copy it
  opened (its inode stays until it closes); one that opens it afterwards gets the new complete
  copy. Nobody waits: the pipeline never opens this file once it is served.
- `parquet/<mart>.parquet`: the same tables, each written beside and renamed over its name.
  Each file is complete, but two files read a moment apart may come from two builds; a query
  that joins marts reads marts.duckdb, which is one build.
- `manifest.json`: served_at, the dbt invocation the marts came from, the close id of every
  closed period, and the rows of each mart; renamed into place last.

Within one process DuckDB shares a database between connections to the same path: a process
sees a newer copy once every connection it had to the old one is closed.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import duckdb

from extractors import crashpoints
from gpuledger.core.home import served_path, serving_dir
from gpuledger.core.warehouse import connect, dbt_target, has_relation

MARTS_SCHEMA = "marts"
STAGED_PREFIX = ".marts-"


class NotServedError(FileNotFoundError):
    """Nothing is served in the home yet: no build has finished there."""


@dataclass(frozen=True)
class Served:
    """What one serve published (manifest.json)."""

    served_at: str
    path: str
    dbt_invocation_id: str | None
    closes: dict[str, str]
    row_counts: dict[str, int]


def parquet_dir(home: Path) -> Path:
    return serving_dir(home) / "parquet"


def manifest_path(home: Path) -> Path:
    return serving_dir(home) / "manifest.json"


def _quoted(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def _dbt_invocation_id(home: Path) -> str | None:
    results = dbt_target(home) / "run_results.json"
    if not results.exists():
        return None
    return json.loads(results.read_text())["metadata"].get("invocation_id")


def _seal(path: Path) -> None:
    """Make a staged file durable and read-only before it is renamed into place."""
    with path.open("rb") as handle:
        os.fsync(handle.fileno())
    path.chmod(0o444)


def _remove_leftovers(folder: Path) -> None:
    """Staged files of a serve that died half-way (the caller holds the home lock)."""
    for leftover in (*folder.glob(f"{STAGED_PREFIX}*"), *folder.glob("parquet/.*.parquet")):
        leftover.unlink()


def _copy_marts(con: duckdb.DuckDBPyConnection, staged: Path) -> tuple[dict[str, int], dict]:
    """Copy every mart into the attached file `staged`: (rows per mart, closes per period)."""
    names = [
        name
        for (name,) in con.execute(
            "select table_name from information_schema.tables where table_schema = ? "
            "order by table_name",
            [MARTS_SCHEMA],
        ).fetchall()
    ]
    con.execute(f"attach {_quoted(staged)} as served (read_write)")
    try:
        counts = {}
        for name in names:
            con.execute(
                f'create table served.main."{name}" as select * from {MARTS_SCHEMA}."{name}"'
            )
            counts[name] = con.execute(f'select count(*) from served.main."{name}"').fetchone()[0]
        closes = {}
        if has_relation(con, MARTS_SCHEMA, "dim_period"):
            closes = dict(
                con.execute(
                    "select period, close_id from served.main.dim_period "
                    "where status = 'closed' order by period"
                ).fetchall()
            )
        con.execute("checkpoint served")
    finally:
        con.execute("detach served")
    return counts, closes


def _write_parquet(home: Path, staged: Path, names: Sequence[str]) -> None:
    folder = parquet_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    with duckdb.connect(str(staged), read_only=True) as con:
        for name in names:
            part = folder / f".{name}-{uuid.uuid4().hex[:12]}.parquet"
            con.execute(f'copy main."{name}" to {_quoted(part)} (format parquet)')
            _seal(part)
            os.replace(part, folder / f"{name}.parquet")
    for stale in folder.glob("*.parquet"):
        if stale.stem not in names:
            stale.unlink()


def serve(home: Path) -> Served:
    """Publish the marts of the warehouse as the served copy (the caller holds the home lock
    and the warehouse is complete: right after a successful build or ledger refresh)."""
    folder = serving_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    _remove_leftovers(folder)
    staged = folder / f"{STAGED_PREFIX}{uuid.uuid4().hex[:12]}.duckdb"
    with connect(home) as con:
        counts, closes = _copy_marts(con, staged)
    _seal(staged)
    _write_parquet(home, staged, list(counts))
    crashpoints.reached("serve:before-swap")
    os.replace(staged, served_path(home))
    served = Served(
        served_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        path=str(served_path(home)),
        dbt_invocation_id=_dbt_invocation_id(home),
        closes=closes,
        row_counts=counts,
    )
    staged_manifest = folder / ".manifest.json"
    staged_manifest.write_text(json.dumps(asdict(served), indent=2) + "\n")
    os.replace(staged_manifest, manifest_path(home))
    return served


def connect_served(home: Path) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the served copy (the last complete build or close)."""
    path = served_path(home)
    if not path.exists():
        raise NotServedError(f"{path}: no marts served yet; run `gpuledger build` first")
    return duckdb.connect(str(path), read_only=True)


def rows(
    con: duckdb.DuckDBPyConnection,
    sql: str,
    params: Sequence[object] | Mapping[str, object] = (),
) -> list[dict[str, object]]:
    """The result of `sql` as one dict per row, keyed by column name (`params` positional,
    or named for `$name` parameters)."""
    cursor = con.execute(sql, dict(params) if isinstance(params, Mapping) else list(params))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def query_served(home: Path, sql: str, params: Sequence[object] = ()) -> list[dict[str, object]]:
    """One query against the served copy; several that must agree share a connect_served."""
    with connect_served(home) as con:
        return rows(con, sql, params)
