"""Which periods a build leaves as they are: the frozen periods.

The models where the allocation history lives are built by period (PERIOD_MODELS, the
by_period materialization, macros/period_scope.sql): a build computes the periods that can
have changed and keeps the rows of the others. A period is frozen when

- it was closed and its close stands when a build succeeded (recorded then, in
  STATE_TABLE),
- no batch landed since that build touches it: a batch that landed records and whose
  evidence span (its manifest's coverage) overlaps the period, or that has no span (a CMDB
  inventory, which states every GPU's service for all time) and so touches every period,
- the ledger is as it was then, or as it was when the marts that read it were last
  refreshed (a close and a reopen write the ledger, refresh those marts, every period, and
  record the state again: after_ledger_write): a mart built by period that reads the ledger
  (fact_charge_line_evidence: each line's status and close) kept rows of the ledger before a
  write that nothing refreshed after (a reopen that stopped half-way), and
- it holds no published Correction of a period the build computes: a Correction's evidence
  is the corrected period as recomputed now (intermediate.int_correction_line_pieces), so
  the period that published it is computed with the period it corrects.

Such a period's rows were computed from every batch that touches it and from the ledger as
it is, and nothing that could change them has landed since, so recomputing them would give
the same rows: a daily run computes the open periods and the closed ones its new batches
reach, not the closed history. A closed period that late evidence reached (its corrections
not yet published: the next close publishes them, intermediate.int_late_evidence) is computed
by the build that has the late batch, and kept by the builds after it that bring nothing new
for it: its rows are computed from the batches, the policy and its own published lines, which
the close that publishes its corrections (as lines of the next open period) leaves as they
are. Every period is computed (nothing frozen) on the first build, after a full refresh, and
when the project's code, seeds or policy snapshot changed since the recorded build
(FINGERPRINT), so a full refresh and a history of daily builds give the same tables
(tests/e2e/test_period_scope.py).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

import duckdb
import pyarrow.parquet as pq

from extractors.rawstore import BATCHES_TABLE, raw_dir
from gpuledger.core.fingerprints import project_and_home
from gpuledger.core.home import warehouse_path
from gpuledger.core.ledger.closes import ledger_version
from gpuledger.core.warehouse import connect, has_relation

# (schema, model) of every model built by period
PERIOD_MODELS = (
    ("intermediate", "int_allocation_segments_split"),
    ("intermediate", "int_tenant_class_timeline"),
    ("intermediate", "int_class_timeline"),
    ("intermediate", "int_capacity_idle_timeline"),
    ("intermediate", "int_unused_guarantee"),
    ("intermediate", "int_pending_gpu_demand"),
    ("intermediate", "int_allocation_segments"),
    ("intermediate", "int_allocation_activity"),
    ("intermediate", "int_segments_priced"),
    ("marts", "fact_gpu_allocation"),
    ("intermediate", "int_device_conservation"),
    ("marts", "fact_idle_capacity"),
    ("intermediate", "int_workload_outcomes"),
    ("marts", "fact_failed_work"),
    ("intermediate", "int_charge_line_pieces"),
    ("intermediate", "int_charge_line_evidence"),
    ("marts", "fact_charge_line_evidence"),
)
STATE_TABLE = "period_scope_frozen"
FROZEN_VARIABLE = "GPULEDGER_FROZEN_PERIODS"


def fingerprint(home: Path) -> str:
    """A hash of the project's models, macros and seeds and of the home's policy snapshot:
    when it changes, the frozen rows were computed by other code or policy."""
    return project_and_home(home, ("policy",))


class Recorded(NamedTuple):
    """The state the last recorded build left (STATE_TABLE), with the ledger as it is now."""

    periods: set[str]  # closed when it was recorded
    batches: set[str]  # the batches the build had
    ledger: int | None  # the ledger's version then (gpuledger.core.ledger.ledger_version)
    ledger_now: int
    # (period, corrected period) of every Correction the ledger holds
    corrections: set[tuple[str, str]]


def _recorded(home: Path, current: str) -> Recorded | None:
    """What the last recorded build left, or None when every period must be computed (no
    record, another fingerprint, a model's table missing)."""
    if not warehouse_path(home).exists():
        return None
    con = connect(home)
    try:
        present = all(has_relation(con, schema, model) for schema, model in PERIOD_MODELS)
        if not present or not has_relation(con, "main", STATE_TABLE):
            return None
        rows = con.execute(f"select kind, name, fingerprint from main.{STATE_TABLE}").fetchall()
        corrections: set[tuple[str, str]] = set()
        if has_relation(con, "ledger", "chargeback_lines"):
            corrections = set(
                con.execute(
                    "select distinct period, corrects_period from ledger.chargeback_lines "
                    "where corrects_period is not null"
                ).fetchall()
            )
        now = ledger_version(con)
    finally:
        con.close()
    if not rows or any(stamp != current for _, _, stamp in rows):
        return None
    versions = [int(name) for kind, name, _ in rows if kind == "ledger"]
    return Recorded(
        periods={name for kind, name, _ in rows if kind == "period"},
        batches={name for kind, name, _ in rows if kind == "batch"},
        ledger=versions[0] if versions else None,
        ledger_now=now,
        corrections=corrections,
    )


def without_corrections_of_computed(
    periods: Iterable[str], corrections: Iterable[tuple[str, str]]
) -> set[str]:
    """`periods` less every period holding a Correction (period, corrected period) of a period
    not kept, until none is left: what such a period's Corrections explain is the corrected
    period as a build recomputes it."""
    kept, corrections = set(periods), list(corrections)
    while dropped := {p for p, corrected in corrections if p in kept and corrected not in kept}:
        kept -= dropped
    return kept


def _months(start: dt.datetime, end: dt.datetime) -> Iterable[str]:
    year, month = start.year, start.month
    while (year, month) <= (end.year, end.month):
        yield f"{year:04d}-{month:02d}"
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)


def _touched(home: Path, batches: Iterable[str]) -> set[str] | None:
    """The periods the batches' evidence spans overlap; None when one that landed records
    has no span (it may touch any period)."""
    touched: set[str] = set()
    folder = raw_dir(home) / BATCHES_TABLE
    for batch in batches:
        path = folder / f"{batch}.parquet"
        if not path.exists():
            continue
        columns = ["records_landed", "coverage_start_at", "coverage_end_at"]
        for row in pq.read_table(path, columns=columns).to_pylist():
            if not row["records_landed"]:
                continue
            start, end = row["coverage_start_at"], row["coverage_end_at"]
            if start is None or end is None:
                return None
            touched.update(_months(start, end))
    return touched


def frozen(home: Path, batches: Iterable[str]) -> tuple[str, ...]:
    """The periods the next build leaves as they are, of `home` whose landed batches are
    `batches`."""
    recorded = _recorded(home, fingerprint(home))
    if recorded is None or recorded.ledger != recorded.ledger_now:
        return ()
    touched = _touched(home, [b for b in batches if b not in recorded.batches])
    if touched is None:
        return ()
    kept = without_corrections_of_computed(recorded.periods - touched, recorded.corrections)
    return tuple(sorted(kept))


def environment(periods: Iterable[str]) -> dict[str, str]:
    """The variable the models built by period read the frozen periods from."""
    return {FROZEN_VARIABLE: ",".join(periods)}


def describe(periods: tuple[str, ...]) -> str:
    if not periods:
        return "models built by period: every period computed"
    return f"models built by period: {len(periods)} frozen period(s) kept ({', '.join(periods)})"


def _closed(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The periods closed now (their close stands: no reopen followed it)."""
    return [
        r[0]
        for r in con.execute(
            "select period from intermediate.int_closed_periods order by period"
        ).fetchall()
    ]


def _write(
    con: duckdb.DuckDBPyConnection, periods: list[str], batches: list[str], stamp: str
) -> None:
    ledger = [("ledger", str(ledger_version(con)), stamp)]
    con.execute("begin")
    con.execute(
        f"create table if not exists main.{STATE_TABLE} "
        "(kind varchar, name varchar, fingerprint varchar, recorded_at timestamp)"
    )
    con.execute(f"delete from main.{STATE_TABLE}")
    rows = [("period", p, stamp) for p in periods] + [("batch", b, stamp) for b in batches]
    rows += ledger
    if rows:
        con.executemany(f"insert into main.{STATE_TABLE} values (?, ?, ?, now()::timestamp)", rows)
    con.execute("commit")


def record(home: Path, batches: Iterable[str], current: str | None = None) -> None:
    """After a successful build of every model: the periods closed now, and the batches the
    build had, under the current fingerprint."""
    stamp = current or fingerprint(home)
    con = connect(home, read_only=False)
    try:
        _write(con, _closed(con), sorted(set(batches)), stamp)
    finally:
        con.close()


def after_ledger_write(home: Path) -> None:
    """After a ledger write (a close published, a reopen) and the refresh of the marts that
    read the ledger (refresh_ledger_marts, every period): a period closed now was computed by
    the build the write followed (from the batches recorded then), and the ledger's marts
    from the ledger as it is now, so it is frozen from now on. Nothing changes when no build
    was recorded under the current fingerprint."""
    current = fingerprint(home)
    recorded = _recorded(home, current)
    if recorded is not None:
        record(home, recorded.batches, current)
