"""Which days a build's incremental models rebuild.

The models where telemetry volume lives (INCREMENTAL_MODELS) are dbt incremental models
rebuilt by whole UTC days (macros/rebuild_window.sql): a run computes the days named in
GPULEDGER_REBUILD_WINDOW (`Window.environment`) from every landed batch and replaces them.
A build names the days the batches landed since the last successful build carry in their
telemetry tables (the min and max sample time of each file, from its Parquet statistics),
each model as far as a sample reaches in its rows (REACH): staging's rows hold the samples of
their own time only, so it rebuilds the days the samples are on; the hourly roll-up's hours
also take a sample's interval into the next hour and its neighbours' an hour out, so it
rebuilds from the day an hour before the first to the day two hours after the last. A later
version of a point for a closed day is such a batch too, so its day is rebuilt, and no other:
a daily run reads the new days, not all history (and staging not the day before them).

The batches a build included are recorded in the warehouse (STATE_TABLE) after it succeeded:
a failed build records nothing and the next one takes its days again. Everything is rebuilt
(`--full-refresh`) when the warehouse lacks an incremental model's table or the state, or when
the models' code changed since (FINGERPRINT: their SQL and the project's macros), so a full
refresh and an incremental history give the same tables (tests/e2e/test_incremental.py).

The models whose rows are per record key (KEYED_MODELS: a Slurm job, a gateway request, a
pod's GPU request, a Slurm workload; the by_key materialization) are handed the same new
batches (KEYED_VARIABLE): they recompute the keys those batches name and keep the other keys'
rows, so a daily run does not re-rank every report of the history
(tests/e2e/test_keyed_staging.py). They are made whole with the models above, and on their
own when the project's code, the home's policy snapshot or its secrets changed since the
recorded build (KEYED_STATE_TABLE: a gateway request's tenant is the policy's, a workload's
user name is hashed with the home's salt) or one of their tables is missing, without the
telemetry.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import itertools
import json
import math
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from extractors.rawstore import BATCHES_TABLE, batch_files, raw_dir
from gpuledger.core.fingerprints import digest, project_and_home
from gpuledger.core.home import PROJECT_DIR, warehouse_path
from gpuledger.core.warehouse import connect, has_relation

# (schema, model, its folder under models/) of every incremental model of the project
INCREMENTAL_MODELS = (
    ("staging", "stg_prometheus__gpu_activity", "staging/prometheus"),
    ("intermediate", "int_device_activity_hourly", "intermediate/activity"),
    ("intermediate", "int_dcgm_device_days", "intermediate/capacity"),
    ("intermediate", "int_node_telemetry_hourly", "intermediate/activity"),
)
# (schema, model, its folder under models/) of the models kept per record key (the by_key
# materialization, macros/keyed.sql): a build recomputes the keys its new batches name
# (Window.keyed) and keeps the others' rows; recorded and made whole with the models above,
# and alone when their own fingerprint changed (keyed_fingerprint: the project's code, the
# policy snapshot, the secrets). Each reads landed records, or keyed models' rows (the keys:
# those whose batch_id, the batch of the report that won, is new), and else only the policy
# and the secrets
KEYED_MODELS = (
    ("staging", "stg_slurm__jobs", "staging/slurm"),
    ("staging", "stg_requests__requests", "staging/requests"),
    ("staging", "stg_kubernetes__pod_allocations_kept", "staging/kubernetes"),
    ("staging", "stg_kubernetes__pending_requests", "staging/kubernetes"),
    ("intermediate", "int_slurm_workloads", "intermediate/work"),
    ("intermediate", "int_gateway_requests", "intermediate/work"),
    ("marts", "dim_workload", "marts/core"),
)
# every model whose rows the recorded batches stand for (STATE_TABLE)
RECORDED_MODELS = INCREMENTAL_MODELS + KEYED_MODELS
KEYED_VARIABLE = "GPULEDGER_KEYED_BATCHES"
# new batches past which the keyed models are made whole instead (the list is an
# environment variable, 25 characters a batch; a backlog that large is a first build's)
KEYED_BATCHES_MAX = 2_000
# the landed tables the incremental models read, with their event time
TELEMETRY_TABLES = {
    "prometheus_points": "sampled_at",
    "nvml_samples": "sampled_at",
    "vgpu_samples": "sampled_at",
}
# how far a sample at t reaches in each model's rows: the model rebuilds the days of
# [first - before, last + after] of the new samples. Staging: a row is a GPU's samples of one
# time. The roll-up: a sample covers its interval (at most an hour: its own clock hour and the
# next), and a new sample shortens the interval of a neighbour up to an hour before it (whose
# hour is then the one before the sample's) and an hour after it (whose interval runs into the
# hour two hours after the sample's).
_ROLLUP_REACH = (dt.timedelta(hours=1), dt.timedelta(hours=2))
REACH = {
    "stg_prometheus__gpu_activity": (dt.timedelta(0), dt.timedelta(0)),
    "int_device_activity_hourly": _ROLLUP_REACH,
    # staging's days per GPU: a row's day is its own
    "int_dcgm_device_days": (dt.timedelta(0), dt.timedelta(0)),
    # the node roll-up's hour: the roll-up's rows of that hour (dcgm) and the NVML rounds of
    # that hour and the hour before (a round runs at most an hour into the next), so it
    # rebuilds the roll-up's hours, not a reach of its own
    "int_node_telemetry_hourly": _ROLLUP_REACH,
}
# models whose rows are hours (the by_day config's replace_column): on DuckDB a piece of
# theirs replaces the hours within its bounds, so their pieces start at the first hour the
# new samples reach and end after the last (Window.hours), where their days would take whole
# days: a daily run's roll-up rebuilt the whole day before the new one (17.7M points of the
# 4,096-GPU fleet) for its last hour, whose samples get a next neighbour
HOURLY_MODELS = frozenset({"int_device_activity_hourly", "int_node_telemetry_hourly"})
STATE_TABLE = "incremental_built_batches"
# the keyed models' fingerprint at the recorded build (one row)
KEYED_STATE_TABLE = "incremental_keyed_inputs"
# what the keyed models read besides landed records and each other: the home's folders
KEYED_HOME_INPUTS = ("policy", "secrets")
WINDOW_VARIABLE = "GPULEDGER_REBUILD_WINDOW"
# each model's own days when they are fewer than the window's: `model=start/end,...`
MODEL_WINDOWS_VARIABLE = "GPULEDGER_REBUILD_MODEL_WINDOWS"
# the same for the days the data tests of a model check
CHECKED_MODEL_VARIABLE = "GPULEDGER_CHECKED_MODEL_WINDOWS"
CHECKED_VARIABLE = "GPULEDGER_CHECKED_WINDOW"
# "1" when the window names no day to rebuild (Window.names_nothing): the by_day models leave
# their tables as they are without running their queries (macros/rebuild_window.sql)
NOTHING_VARIABLE = "GPULEDGER_REBUILD_NOTHING"
CHUNK_VARIABLE = "GPULEDGER_REBUILD_CHUNK_ROWS"
PIECES_VARIABLE = "GPULEDGER_REBUILD_PIECES"
# the landed batches each piece of a model in BATCH_SCOPED reads (pieces_environment)
PIECE_BATCHES_VARIABLE = "GPULEDGER_REBUILD_PIECE_BATCHES"
# models that read the landed points of the batches a piece's samples are in, named to them
# (macros/rebuild_window.sql: rebuild_batches): staging found them with a second scan of the
# piece's points, and then read the series of every landed batch to join them (2.35M series
# in a 4,096-GPU month, in each of its 62 pieces)
BATCH_SCOPED = frozenset({"stg_prometheus__gpu_activity"})
# what the by_day materialization prints as each piece is committed (then: model, piece)
PIECE_DONE = "gpuledger rebuilt piece:"
# telemetry rows (points) a rebuild takes in one piece (of a dbt run): staging groups a piece's
# points by device and time under the 3 GB memory limit, and past about 3M groups (9M points
# of three metrics) that group-by spills and costs three times as much per row: 1,024 GPUs of
# the benchmark, 4.4M points a day, took 2.0 s for one day, 4.2 s for two, 10.3-12.6 s for
# four (benchmarks/results.md, "Staging pieces"); a day of more points than this is cut into
# pieces of whole hours, so a day of 4,096 GPUs (17.7M points) is two pieces of 12 hours
CHUNK_ROWS = 9_000_000
# models whose piece takes more rows than that: the hourly roll-up reads staging's rows (one
# per device and time, not one per metric) and keeps one per hour; over the 4,096-GPU fleet a
# piece of 2 days (36M points) costs it 2.6 s a day, one of 8 days 3.3 s a day and one day
# alone 2.8 s (benchmarks/results.md, "Staging pieces"); the DCGM device days keep one row
# per GPU and day of staging's rows (a group-by of a few thousand groups a day); the node
# roll-up reads the roll-up's rows (one per device and hour) and the NVML rounds, grouped per
# node and round
CHUNK_SCALE = {
    "int_device_activity_hourly": 4,
    "int_dcgm_device_days": 16,
    "int_node_telemetry_hourly": 16,
}
# models whose rows are per day: their pieces are whole days, a day of more rows than the
# limit alone in one
WHOLE_DAYS = frozenset({"int_dcgm_device_days"})
# telemetry rows past which a window is rebuilt in a dbt run of its own before the build: in
# the build the rebuild runs beside other models in the same DuckDB, under the same memory
# limit, and a day of the 4,096-GPU fleet (17.7M points) ran it out of memory there while
# alone it takes 3 GB and 10 s (benchmarks/results.md); a day of 1,024 GPUs (4.4M) fits.
# Counted per model, over the days it rebuilds, each model's rows divided by its
# CHUNK_SCALE (model_rows): what one statement of the model holds at once
ALONE_ROWS = 5_000_000
# the first day of the daily partitions (orchestration.partitions.FIRST_DAY): the one day a
# build with nothing new to rebuild names (no evidence is that old, so it is an empty batch)
EMPTY_DAY = dt.date(2020, 1, 1)


def fingerprint() -> str:
    """A hash of the incremental models' SQL and of every macro: when it changes, the days
    built before were computed by other code, so the next build rebuilds them all."""
    models = PROJECT_DIR / "models"
    paths = [models / folder / f"{name}.sql" for _, name, folder in INCREMENTAL_MODELS]
    paths += sorted((PROJECT_DIR / "macros").rglob("*.sql"))
    return digest((path.relative_to(PROJECT_DIR).as_posix(), path) for path in paths)


def keyed_fingerprint(home: Path) -> str:
    """A hash of the project's models, macros and seeds and of the home's policy snapshot
    and secrets: when it changes, the keys kept were computed by other code (theirs, or a
    model they read: the policy's staging, the batch manifests) or another policy or salt,
    so the next build makes the keyed models whole (the telemetry stays)."""
    return project_and_home(home, KEYED_HOME_INPUTS)


@dataclass(frozen=True)
class Window:
    """The days [start, end) the incremental models rebuild, and the batches that brought
    them (recorded when the build succeeds)."""

    start: dt.date
    end: dt.date
    batches: tuple[str, ...]
    full_refresh: bool
    fingerprint: str
    # the days the data tests of the incremental models check, when not [start, end)
    checked: tuple[dt.date, dt.date] | None = None
    # (model, start, end): a model's own days [start, end) when they are fewer (REACH)
    own: tuple[tuple[str, dt.date, dt.date], ...] = ()
    # the same for the days checked, when not `own`
    checked_own: tuple[tuple[str, dt.date, dt.date], ...] | None = None
    # (model, first, end): the hours [first, end) an HOURLY_MODELS model rebuilds, where
    # they are within its days (`cut` starts its first piece and ends its last there)
    hours: tuple[tuple[str, dt.datetime, dt.datetime], ...] = ()
    # whether the KEYED_MODELS recompute the keys of `batches` (else they are made whole);
    # kept by `done`, which drops the full refresh once the window's days were rebuilt
    keyed: bool = False
    # the keyed models' fingerprint (keyed_fingerprint) when the window was found
    keyed_stamp: str = ""

    def model_days(self, model: str | None) -> tuple[dt.date, dt.date]:
        """The days [start, end) `model` rebuilds: its own, else the window's."""
        found = [(start, end) for name, start, end in self.own if name == model]
        return found[0] if found else (self.start, self.end)

    def model_span(self, model: str | None) -> tuple[dt.datetime, dt.datetime]:
        """The instants [first, end) `model`'s pieces cover: its hours (HOURLY_MODELS),
        else its days' midnights."""
        found = [(first, end) for name, first, end in self.hours if name == model]
        first, last = self.model_days(model)
        return found[0] if found else (_midnight(first), _midnight(last))

    def args(self) -> list[str]:
        """dbt's arguments: a full refresh rebuilds the incremental models whole."""
        return ["--full-refresh"] if self.full_refresh else []

    def environment(self) -> dict[str, str]:
        """The variables the incremental models read their days from, and their data tests
        the days they check (macros/get_where_subquery.sql): the days rebuilt, as every
        other day was checked when it was built."""
        checked = self.checked or (self.start, self.end)
        checked_own = self.own if self.checked_own is None else self.checked_own
        return {
            WINDOW_VARIABLE: f"{self.start.isoformat()}/{self.end.isoformat()}",
            NOTHING_VARIABLE: "1" if self.names_nothing else "",
            CHECKED_VARIABLE: f"{checked[0].isoformat()}/{checked[1].isoformat()}",
            MODEL_WINDOWS_VARIABLE: _models(self.own),
            CHECKED_MODEL_VARIABLE: _models(checked_own),
            KEYED_VARIABLE: ",".join(self.batches) or "-" if self.keyed else "",
        }

    def done(self) -> Window:
        """This window once its days were rebuilt (in pieces): the build itself names none."""
        empty = EMPTY_DAY + dt.timedelta(days=1)
        return dataclasses.replace(
            self,
            start=EMPTY_DAY,
            end=empty,
            full_refresh=False,
            checked=(self.start, self.end),
            own=(),
            checked_own=self.own,
            hours=(),
        )

    @property
    def days(self) -> int:
        return (self.end - self.start).days

    @property
    def names_nothing(self) -> bool:
        """Whether the window is the one empty day for every model and no full refresh: no
        new sample to rebuild from (nothing landed, or its days rebuilt in pieces before the
        build)."""
        nothing = (self.start, self.days, self.own, self.hours) == (EMPTY_DAY, 1, (), ())
        return nothing and not self.full_refresh

    def __str__(self) -> str:
        kind = "full refresh" if self.full_refresh else "incremental"
        if self.start == EMPTY_DAY and self.days == 1:
            return f"incremental models: nothing new to rebuild ({kind})"
        own = "".join(
            f"; {name} {(end - start).days} day(s) {start} to {end - dt.timedelta(days=1)}"
            for name, start, end in self.own
        )
        keyed = f"{len(self.batches)} new batch(es)" if self.keyed else "made whole"
        return (
            f"incremental models: {kind}, {self.days} day(s) {self.start} to "
            f"{self.end - dt.timedelta(days=1)}{own}, from {len(self.batches)} new batch(es); "
            f"models kept by key: {keyed}"
        )


def _models(own: Iterable[tuple[str, dt.date, dt.date]]) -> str:
    """`model=start/end,...` (macros/rebuild_window.sql, macros/get_where_subquery.sql)."""
    return ",".join(f"{name}={start}/{end}" for name, start, end in own)


def manifested_batches(home: Path) -> list[str]:
    """Every landed batch (one with a manifest)."""
    return [path.stem for path in batch_files(raw_dir(home) / BATCHES_TABLE)]


def batch_span(home: Path, batch_id: str) -> tuple[dt.datetime, dt.datetime] | None:
    """The earliest and latest event time in the batch's telemetry files (Parquet row-group
    statistics, else the column itself), None when it landed no telemetry."""
    found = _telemetry(home, batch_id)
    return (found[0], found[1]) if found else None


def _telemetry(home: Path, batch_id: str) -> tuple[dt.datetime, dt.datetime, int] | None:
    """The batch's first and last telemetry event time and its telemetry rows, each file's
    metadata read once."""
    times: list[dt.datetime] = []
    rows = 0
    for table, column in TELEMETRY_TABLES.items():
        path = raw_dir(home) / table / f"{batch_id}.parquet"
        if path.exists():
            stat = path.stat()
            file_rows, file_times = _file_telemetry(path, column, stat.st_mtime_ns, stat.st_size)
            rows += file_rows
            times += file_times
    return (min(times), max(times), rows) if times else None


@functools.lru_cache(maxsize=65536)
def _file_telemetry(
    path: Path, column: str, mtime_ns: int, size: int
) -> tuple[int, tuple[dt.datetime, ...]]:
    """A telemetry file's rows and the extremes of its event time, read once per version of
    the file in a process: a build reads the new batches' for its window and every batch's
    for its pieces (day_rows)."""
    meta = pq.ParquetFile(path).metadata
    return meta.num_rows, tuple(_column_span(path, meta, column))


def _column_span(path: Path, meta: pq.FileMetaData, column: str) -> list[dt.datetime]:
    if meta.num_rows == 0:
        return []
    index = meta.schema.to_arrow_schema().get_field_index(column)
    stats = [meta.row_group(g).column(index).statistics for g in range(meta.num_row_groups)]
    if all(s is not None and s.has_min_max for s in stats):
        return [v for s in stats for v in (s.min, s.max)]
    extremes = pc.min_max(pq.read_table(path, columns=[column]).column(column))
    found = [extremes["min"].as_py(), extremes["max"].as_py()]
    return [value for value in found if value is not None]


def _built(home: Path, current: str) -> tuple[set[str] | None, str | None]:
    """The batches the incremental models hold (None when they must be rebuilt whole), and
    the keyed models' recorded fingerprint (None when not recorded, or when a keyed model's
    table is missing: a model new to the project is made whole with the others)."""
    if not warehouse_path(home).exists():
        return None, None
    con = connect(home)
    try:
        present = all(has_relation(con, s, model) for s, model, _ in INCREMENTAL_MODELS)
        if not present or not has_relation(con, "main", STATE_TABLE):
            return None, None
        rows = con.execute(f"select batch_id, fingerprint from main.{STATE_TABLE}").fetchall()
        keyed = None
        kept = all(has_relation(con, s, model) for s, model, _ in KEYED_MODELS)
        if kept and has_relation(con, "main", KEYED_STATE_TABLE):
            found = con.execute(f"select fingerprint from main.{KEYED_STATE_TABLE}").fetchall()
            keyed = found[0][0] if len(found) == 1 else None
    finally:
        con.close()
    if any(stamp != current for _, stamp in rows):
        return None, None
    return {batch for batch, _ in rows}, keyed


def window(home: Path, rebuild: Iterable[dt.date] = ()) -> Window:
    """The days the next build of `home` rebuilds (plus the days `rebuild` names)."""
    current = fingerprint()
    built, keyed_built = _built(home, current)
    batches = manifested_batches(home)
    new = [b for b in batches if built is None or b not in built]
    spans = [(_midnight(day), _midnight(day) + _LAST) for day in rebuild] + _spans(home, new)
    found = _window(spans, tuple(new), built is None, current)
    stamp = keyed_fingerprint(home)
    keyed = built is not None and keyed_built == stamp and len(new) <= KEYED_BATCHES_MAX
    return dataclasses.replace(found, keyed=keyed, keyed_stamp=stamp)


# the last instant of a day that a span of whole days ends at
_LAST = dt.timedelta(days=1, microseconds=-1)


def _window(
    spans: list[tuple[dt.datetime, dt.datetime]],
    batches: tuple[str, ...],
    full_refresh: bool,
    stamp: str,
) -> Window:
    """The window of samples between each span's first and last instant: every model's days
    (their REACH), those of a model with fewer days than the window's, and the hours of an
    HOURLY_MODELS model where they are fewer than its days."""
    reached: dict[str, tuple[dt.date, dt.date]] = {}
    hours = []
    # the first and last new sample (the same for every model)
    earliest = min((first for first, _ in spans), default=None)
    latest = max((last for _, last in spans), default=None)
    for model, (before, after) in REACH.items():
        if earliest is None or latest is None:  # no samples: the one empty day
            reached[model] = (EMPTY_DAY, EMPTY_DAY + dt.timedelta(days=1))
            continue
        # the first and last instant a new sample reaches in the model's rows
        lower, upper = earliest - before, latest + after
        reached[model] = (lower.date(), upper.date() + dt.timedelta(days=1))
        first, last = _hour(lower), _hour(upper) + _HOUR
        if model in HOURLY_MODELS and (first, last) != tuple(map(_midnight, reached[model])):
            hours.append((model, first, last))
    start = min(first for first, _ in reached.values())
    end = max(end for _, end in reached.values())
    own = tuple((m, a, b) for m, (a, b) in reached.items() if (a, b) != (start, end))
    return Window(start, end, batches, full_refresh, stamp, own=own, hours=tuple(hours))


_HOUR = dt.timedelta(hours=1)


def _hour(instant: dt.datetime) -> dt.datetime:
    """The start of the clock hour `instant` is in."""
    return instant.replace(minute=0, second=0, microsecond=0)


def _spans(home: Path, batches: Iterable[str]) -> list[tuple[dt.datetime, dt.datetime]]:
    """The first and last sample time of each batch's telemetry."""
    return [span for batch in batches if (span := batch_span(home, batch)) is not None]


def _day_points(home: Path, batches: Iterable[str]) -> dict[dt.date, float]:
    """The telemetry rows the batches hold per day (a batch's rows spread evenly over the
    days it spans)."""
    found: dict[dt.date, float] = {}
    for batch in batches:
        telemetry = _telemetry(home, batch)
        if telemetry is None:
            continue
        first, last, rows = telemetry[0].date(), telemetry[1].date(), telemetry[2]
        days = (last - first).days + 1
        for n in range(days):
            day = first + dt.timedelta(days=n)
            found[day] = found.get(day, 0.0) + rows / days
    return found


@dataclass(frozen=True)
class Piece:
    """A part [start, end) of a window that the by_day materialization rebuilds in one
    statement: runs of whole days, or whole hours of a day too large for one piece."""

    start: dt.datetime
    end: dt.datetime

    def __str__(self) -> str:
        return f"{_stamp(self.start)}/{_stamp(self.end)}"


def _stamp(instant: dt.datetime) -> str:
    """`2026-10-01` at midnight, else `2026-10-01T12:00:00`."""
    return instant.date().isoformat() if instant.time() == dt.time() else instant.isoformat()


def _midnight(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time())


def chunks(
    home: Path, days: Window, limit: int | None = None, model: str | None = None
) -> list[Piece]:
    """`days` cut into pieces of at most `limit` telemetry rows each
    (GPULEDGER_REBUILD_CHUNK_ROWS, default CHUNK_ROWS; times CHUNK_SCALE for `model`): what a
    large window (a fleet month built the first time) is rebuilt in, one piece after another
    (the by_day materialization), so a build's memory stays bounded. One piece, the whole
    window, when it fits."""
    return cut(days, day_rows(home, days), limit, model)


def day_rows(home: Path, days: Window) -> dict[dt.date, float]:
    """The telemetry rows every landed batch holds on each day of the window (read from
    their Parquet footers): what the models read there, what `cut` cuts by, read once for
    every model. Not only the new batches': a daily run rebuilds the roll-up of the day
    before the new one, whose rows landed the day before."""
    found = _day_points(home, manifested_batches(home))
    return {day: rows for day, rows in found.items() if days.start <= day < days.end}


def cut(
    days: Window,
    per_day: dict[dt.date, float],
    limit: int | None = None,
    model: str | None = None,
) -> list[Piece]:
    """`chunks` of `days` by the rows `per_day` (day_rows): consecutive days while their rows
    fit the limit; a day of more rows than the limit alone, in as many pieces of whole hours
    as it takes (its rows taken as spread evenly over its hours, at most 24 pieces), or whole
    for a model of WHOLE_DAYS."""
    limit = limit or int(os.environ.get(CHUNK_VARIABLE, "") or CHUNK_ROWS)
    limit *= CHUNK_SCALE.get(model or "", 1)
    first, last = days.model_days(model)
    lower, upper = days.model_span(model)
    pieces: list[Piece] = []
    start, rows, end = _midnight(first), 0.0, _midnight(last)
    day = first
    while day < last:
        here = per_day.get(day, 0.0)
        midnight = _midnight(day)
        if midnight > start and rows + here > limit:
            pieces.append(Piece(start, midnight))
            start, rows = midnight, 0.0
        if here > limit:
            parts = 1 if model in WHOLE_DAYS else min(24, math.ceil(here / limit))
            bounds = [midnight + dt.timedelta(hours=24 * n // parts) for n in range(parts + 1)]
            pieces += [Piece(a, b) for a, b in itertools.pairwise(bounds)]
            start, rows = bounds[-1], 0.0
        else:
            rows += here
        day += dt.timedelta(days=1)
    if start < end:
        pieces.append(Piece(start, end))
    # an hourly model's first piece from its first hour, its last to its last (model_span)
    clipped = [Piece(max(p.start, lower), min(p.end, upper)) for p in pieces]
    return [piece for piece in clipped if piece.start < piece.end]


def plan(
    days: Window, per_day: dict[dt.date, float], alone_rows: int | None = None
) -> dict[str, list[Piece]] | None:
    """The pieces each incremental model rebuilds `days` in (`cut` of `per_day`, day_rows)
    when they are rebuilt in a dbt run of their own before the build: a window where a model
    reads more telemetry rows than `alone_rows` (ALONE_ROWS; model_rows), or cut into more
    than one piece. None: the build rebuilds the window beside the other models."""
    alone_rows = ALONE_ROWS if alone_rows is None else alone_rows
    models = [name for _, name, _ in INCREMENTAL_MODELS]
    pieces = {model: cut(days, per_day, model=model) for model in models}
    largest = max(model_rows(days, per_day, model) for model in models)
    if largest <= alone_rows and all(len(model_pieces) == 1 for model_pieces in pieces.values()):
        return None
    return pieces


def model_rows(days: Window, per_day: dict[dt.date, float], model: str) -> float:
    """The telemetry rows (`per_day`, day_rows) on the days `model` rebuilds, over its
    CHUNK_SCALE: what a statement of it holds, in rows of staging's measure. A daily run's
    window spans the day before the new one (the roll-ups' first hour) and the next
    (their last), while staging rebuilds the new day alone: a day of 1,024 GPUs (4.4M
    points) fits beside the build where its window's days (8.8M) did not."""
    first, last = days.model_days(model)
    rows = sum(n for day, n in per_day.items() if first <= day < last)
    return rows / CHUNK_SCALE.get(model, 1)


def pieces_environment(pieces: dict[str, list[Piece]], home: Path | None = None) -> dict[str, str]:
    """The variable naming each model's pieces (`start/end`, days or instants) to the by_day
    materialization, which rebuilds them one after another in one dbt run
    (macros/rebuild_window.sql: rebuild_pieces); with `home`, and the variable naming the
    landed batches each piece of a BATCH_SCOPED model reads (piece_batches)."""
    named = {model: [str(p) for p in model_pieces] for model, model_pieces in pieces.items()}
    environment = {PIECES_VARIABLE: json.dumps(named, sort_keys=True)}
    if home is not None:
        spans = _landed_spans(home)
        scoped = {
            model: [list(_reaching(spans, model, piece)) for piece in model_pieces]
            for model, model_pieces in pieces.items()
            if model in BATCH_SCOPED
        }
        environment[PIECE_BATCHES_VARIABLE] = json.dumps(scoped, sort_keys=True)
    return environment


def piece_batches(home: Path, model: str, piece: Piece) -> tuple[str, ...]:
    """The landed batches with telemetry samples in what `piece` of `model` reads: its
    [start, end) widened by the model's REACH (from each batch's first and last sample time,
    the Parquet statistics the window is made from), in batch order."""
    return _reaching(_landed_spans(home), model, piece)


def _landed_spans(home: Path) -> dict[str, tuple[dt.datetime, dt.datetime]]:
    """Each landed batch's first and last sample time (those with telemetry), in batch
    order: read once for all the pieces of a run."""
    return {
        batch: span
        for batch in sorted(manifested_batches(home))
        if (span := batch_span(home, batch)) is not None
    }


def _reaching(
    spans: dict[str, tuple[dt.datetime, dt.datetime]], model: str, piece: Piece
) -> tuple[str, ...]:
    """The batches of `spans` with samples in `piece` of `model` widened by its REACH."""
    before, after = REACH.get(model, (dt.timedelta(0), dt.timedelta(0)))
    lower, upper = piece.start - before, piece.end + after
    return tuple(batch for batch, (first, last) in spans.items() if first < upper and last >= lower)


def full_window(home: Path) -> Window:
    """Every landed batch's days, as a full refresh (a new warehouse on another engine)."""
    batches = manifested_batches(home)
    found = _window(_spans(home, batches), tuple(batches), True, fingerprint())
    return dataclasses.replace(found, keyed_stamp=keyed_fingerprint(home))


def record(home: Path, built: Window) -> None:
    """After a successful build: the batches of `built` are in the incremental models (a
    full refresh replaces what was recorded)."""
    con = connect(home, read_only=False)
    try:
        con.execute(
            f"create table if not exists main.{STATE_TABLE} "
            "(batch_id varchar primary key, fingerprint varchar, built_at timestamp)"
        )
        if built.full_refresh:
            con.execute(f"delete from main.{STATE_TABLE}")
        if built.batches:
            con.executemany(
                f"insert or replace into main.{STATE_TABLE} values (?, ?, now()::timestamp)",
                [(batch, built.fingerprint) for batch in built.batches],
            )
        # the keyed models were built under this fingerprint (made whole, or kept per key
        # under the same one)
        con.execute(
            f"create or replace table main.{KEYED_STATE_TABLE} as "
            "select ?::varchar as fingerprint, now()::timestamp as built_at",
            [built.keyed_stamp or None],
        )
    finally:
        con.close()


def main(argv: list[str] | None = None) -> int:
    """`python -m gpuledger.core.incremental HOME`: the next build's window of HOME, as the
    shell assignment a dbt run by hand takes (make dbt-test)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m gpuledger.core.incremental HOME", file=sys.stderr)
        return 2
    days = window(Path(args[0]))
    print(" ".join(f"{k}={v}" for k, v in days.environment().items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
