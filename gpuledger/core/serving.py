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
  closed period, the rows of each mart, the last dbt command the copy has seen
  (`served_through`) and what it took from the copy before it (`kept`); renamed into place
  last.

A serve copies only what can have changed since the copy before it. Every dbt command
records itself in the warehouse (`main.dbt_invocations`, macros/record_dbt_run.sql): the marts
it selected and, for those built by period, the periods it kept (frozen, never on a full
refresh). When the served copy saw the commands up to one of those rows (its manifest's
`served_through`, checked by invocation id), the new copy starts as a file copy of it: a mart
no command since selected is kept as it is (its Parquet file too), one built by period keeps
the rows of the periods every command since kept and takes the others from the warehouse,
every other mart, and every view (dim_period reads the ledger, which changes outside dbt), is
copied again. Without such a copy (none yet, another warehouse, a command that did not record
itself) every mart is copied.

Within one process DuckDB shares a database between connections to the same path: a process
sees a newer copy once every connection it had to the old one is closed.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import shutil
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import duckdb

from extractors import crashpoints
from gpuledger.core.home import served_path, serving_dir
from gpuledger.core.warehouse import connect, dbt_target, has_relation

MARTS_SCHEMA = "marts"
STAGED_PREFIX = ".marts-"
# the dbt commands run on the warehouse, in order (macros/record_dbt_run.sql)
INVOCATIONS_TABLE = "dbt_invocations"


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
    # the last dbt command the copy has seen: {"seq": n, "invocation_id": id} of
    # main.dbt_invocations (None: the warehouse records none)
    served_through: dict[str, object] | None = None
    # what this serve took from the copy before it: a mart kept whole ("all"), or the periods
    # of a mart built by period whose rows it kept
    kept: dict[str, object] = dataclasses.field(default_factory=dict)


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


@dataclass(frozen=True)
class Reuse:
    """What a serve may take from the served copy before it (`Served.kept`): the marts no
    dbt command since selected, and for each mart built by period that every command since
    that selected it kept periods of, its period column and those periods."""

    untouched: frozenset[str]
    periods: dict[str, tuple[str, tuple[str, ...]]]


def _previous(home: Path) -> dict | None:
    """The manifest of the served copy, when its marts.duckdb is there too."""
    path = manifest_path(home)
    if not path.exists() or not served_path(home).exists():
        return None
    try:
        return json.loads(path.read_text())
    except ValueError:
        return None


def _through(con: duckdb.DuckDBPyConnection) -> dict[str, object] | None:
    """The last dbt command the warehouse recorded (what a copy made now has seen)."""
    if not has_relation(con, "main", INVOCATIONS_TABLE):
        return None
    row = con.execute(
        f"select seq, invocation_id from main.{INVOCATIONS_TABLE} order by seq desc limit 1"
    ).fetchone()
    return None if row is None else {"seq": row[0], "invocation_id": row[1]}


def plan_reuse(con: duckdb.DuckDBPyConnection, previous: dict | None) -> Reuse | None:
    """What the served copy described by `previous` (its manifest) still holds of the
    warehouse `con` reads: None when it cannot be told (no copy, no record of the commands
    since it, another warehouse), so every mart is copied."""
    seen = (previous or {}).get("served_through")
    if not isinstance(seen, dict) or not has_relation(con, "main", INVOCATIONS_TABLE):
        return None
    rows = con.execute(
        f"select seq, invocation_id, full_refresh, frozen_periods, selected_marts "
        f"from main.{INVOCATIONS_TABLE} where seq >= ? order by seq",
        [seen.get("seq")],
    ).fetchall()
    if not rows or (rows[0][0], rows[0][1]) != (seen.get("seq"), seen.get("invocation_id")):
        return None
    # per mart selected since: (its period column, the periods every command kept), or None
    kept: dict[str, tuple[str, set[str]] | None] = {}
    for _, _, full_refresh, frozen, marts in rows[1:]:
        named = set(filter(None, (frozen or "").split(",")))
        for mart, column in json.loads(marts or "{}").items():
            keeps = column is not None and not full_refresh and bool(named)
            if mart not in kept:
                kept[mart] = (column, named) if keeps else None
            else:
                before = kept[mart]
                same = keeps and before is not None and before[0] == column
                kept[mart] = (column, before[1] & named) if same and before else None
    previous_marts = set((previous or {}).get("row_counts") or {})
    return Reuse(
        untouched=frozenset(previous_marts - set(kept)),
        periods={
            mart: (found[0], tuple(sorted(found[1])))
            for mart, found in kept.items()
            if found is not None and found[1] and mart in previous_marts
        },
    )


def _spent(home: Path) -> bool:
    """Whether the served file holds more freed blocks than used ones. A serve that keeps
    part of the copy before frees the blocks of what it replaces at its checkpoint and the
    next one writes into them, so the file stays about the size of the marts plus what one
    serve replaces; after a serve that replaced nearly everything in a copy (a full refresh)
    it would stay twice the marts' size, and the next serve makes a new file instead."""
    with duckdb.connect(str(served_path(home)), read_only=True) as con:
        row = con.execute("pragma database_size").fetchone()
    return row is not None and row[5] > row[4]


def _shapes(con: duckdb.DuckDBPyConnection, catalog: str, schema: str) -> dict[str, list]:
    """Each table or view of `catalog.schema` with its (column, type) pairs in order."""
    shapes: dict[str, list] = {}
    for table, column, data_type in con.execute(
        "select table_name, column_name, data_type from information_schema.columns "
        "where table_catalog = ? and table_schema = ? order by table_name, ordinal_position",
        [catalog, schema],
    ).fetchall():
        shapes.setdefault(table, []).append((column, data_type))
    return shapes


def _copy_marts(
    con: duckdb.DuckDBPyConnection, staged: Path, reuse: Reuse | None
) -> tuple[dict[str, int], dict, dict[str, object]]:
    """Copy the marts into the attached file `staged` (a copy of the served file when
    `reuse` says what it still holds, else new): (rows per mart, closes per period, what
    was kept)."""
    marts = dict(
        con.execute(
            "select table_name, table_type from information_schema.tables "
            "where table_schema = ? order by table_name",
            [MARTS_SCHEMA],
        ).fetchall()
    )
    warehouse = con.execute("select current_database()").fetchone()[0]
    con.execute(f"attach {_quoted(staged)} as served (read_write)")
    try:
        held = _shapes(con, "served", "main")
        shapes = _shapes(con, warehouse, MARTS_SCHEMA)
        kept: dict[str, object] = {}
        counts = {}
        for name in held.keys() - marts.keys():
            con.execute(f'drop table served.main."{name}"')
        for name, kind in marts.items():
            target = f'served.main."{name}"'
            same_shape = name in held and held[name] == shapes.get(name)
            table = kind == "BASE TABLE"
            if reuse and table and same_shape and name in reuse.untouched:
                kept[name] = "all"
            elif reuse and table and same_shape and name in reuse.periods:
                column, periods = reuse.periods[name]
                live = (
                    f'"{column}" is null or "{column}" not in ('
                    + ", ".join("'" + p.replace("'", "''") + "'" for p in periods)
                    + ")"
                )
                con.execute(f"delete from {target} where {live}")
                con.execute(
                    f'insert into {target} by name select * from {MARTS_SCHEMA}."{name}" '
                    f"where {live}"
                )
                kept[name] = list(periods)
            else:
                if name in held:
                    con.execute(f"drop table {target}")
                con.execute(f'create table {target} as select * from {MARTS_SCHEMA}."{name}"')
            counts[name] = con.execute(f"select count(*) from {target}").fetchone()[0]
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
    return counts, closes, kept


def _write_parquet(
    home: Path, staged: Path, names: Sequence[str], unchanged: Iterable[str] = ()
) -> None:
    """Write each mart's Parquet file beside and rename it over its name; a mart in
    `unchanged` (kept whole from the copy before) keeps the file it has."""
    folder = parquet_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    keep = set(unchanged)
    with duckdb.connect(str(staged), read_only=True) as con:
        for name in names:
            if name in keep and (folder / f"{name}.parquet").exists():
                continue
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
    previous = _previous(home)
    with connect(home) as con:
        reuse = plan_reuse(con, previous)
        if reuse is not None and (not (reuse.untouched or reuse.periods) or _spent(home)):
            reuse = None  # nothing to keep, or a copy made mostly of freed blocks: anew
        if reuse is not None:
            shutil.copyfile(served_path(home), staged)
        counts, closes, kept = _copy_marts(con, staged, reuse)
        through = _through(con)
    _seal(staged)
    _write_parquet(home, staged, list(counts), [n for n, how in kept.items() if how == "all"])
    crashpoints.reached("serve:before-swap")
    os.replace(staged, served_path(home))
    served = Served(
        served_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        path=str(served_path(home)),
        dbt_invocation_id=_dbt_invocation_id(home),
        closes=closes,
        row_counts=counts,
        served_through=through,
        kept=kept,
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
