"""The regular records of sacct text read column by column (pure, on Arrow arrays): the bulk of
`sacct --parsable2` output, one line per record holding exactly its layout's fields.

Every value is read by the rule extractors.slurm.record applies to one record: TRES and GRES
lists, states, exit codes and host lists by its own functions, once per distinct value (they
repeat from job to job, and are remembered from chunk to chunk); times, durations, counts and
job ids by vectorised forms of its rules, for the values whose form those cover (an ISO time
without offset, `[[d-]hh:]mm:ss`, ASCII digits). A record holding any other value (a pending
array `1_[1-3]`, a time with an offset, an invalid field) is left unread here: the per-record
reading lands or rejects it, as it would any record.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from extractors.records import arrow_schema
from extractors.slurm.record import NO_TIME, exit_code, gpus, time_value
from extractors.slurm.records import SlurmJob
from extractors.slurm.values import (
    NO_LIMIT,
    FieldError,
    gpu_fields,
    node_fields,
    parse_duration_seconds,
    split_state,
)

SCHEMA = arrow_schema(SlurmJob)
TIME_FORMAT = "%Y-%m-%dT%H:%M:%S"
_ISO_TIME = r"^[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$"
_DURATION = (
    r"^(?:(?:(?P<days>[0-9]{1,9})-)?(?P<hours>[0-9]{1,9}):)?"
    r"(?P<minutes>[0-9]{1,9}):(?P<seconds>[0-9]{1,9})(?:\.[0-9]+)?$"
)
_UINT = r"^[0-9]{1,18}$"
_JOB_ID = r"^(?P<job>[^.]+)(?:\.(?P<step>.+))?$"
_ARRAY_TASK = r"^(?P<array>[0-9]+)_(?P<task>[0-9]+)$"
_HET_COMPONENT = r"^(?P<het>[0-9]+)\+(?P<offset>[0-9]{1,18})$"
_MAX_ELAPSED_SECONDS = 10**11  # beyond, Start + Elapsed is left to the per-record reading
_GPU_COLUMNS = ("alloctres", "reqtres", "reqgres", "allocgres")
_UNREAD = object()  # a distinct value the per-record reading would reject
_REMEMBERED = 100_000  # distinct values kept per function from chunk to chunk


@dataclass(frozen=True)
class Read:
    """What the column-wise reading made of some lines."""

    rows: pa.Table  # one SlurmJob row per line read, in the lines' order
    unread: list[int]  # indexes of the lines left to the per-record reading
    gpu_sources: list[tuple[int, str]]  # (line, legacy column) of records counting GPUs from it


class Distinct:
    """A function of one value, called once per distinct value; a FieldError marks it unread."""

    def __init__(self, function: Callable[[str], object]) -> None:
        self.function = function
        self.known: dict[str, object] = {}

    def __call__(self, array: pa.Array) -> tuple[list[object], pa.Array]:
        """The result of each distinct value, and each row's index into them."""
        encoded = pc.dictionary_encode(array)
        if len(self.known) > _REMEMBERED:
            self.known.clear()
        results = []
        for value in encoded.dictionary.to_pylist():
            if value not in self.known:
                try:
                    self.known[value] = self.function(value)
                except FieldError:
                    self.known[value] = _UNREAD
            results.append(self.known[value])
        return results, encoded.indices


class ColumnReader:
    """Reads regular records of one cluster option and time zone, chunk after chunk."""

    def __init__(self, *, cluster: str | None, timezone: str) -> None:
        self.cluster = cluster or None
        self.timezone = timezone
        self.states = Distinct(split_state)
        self.exit_codes = Distinct(exit_code)
        self.nodes = Distinct(lambda value: node_fields(value, "NodeList"))
        self.limits = Distinct(_timelimit_minutes)
        self.gpus: dict[tuple[str, ...], Distinct] = {}

    def read(
        self, lines: pa.Array, numbers: pa.Array, columns: tuple[str, ...], delimiter: str
    ) -> Read:
        """Read `lines` (numbered `numbers`), each split by `delimiter` into at least the
        `columns` (lower-case sacct names; "" for a column not read)."""
        values = {
            name: pc.utf8_trim_whitespace(column)
            for name, column in _split(lines, columns, delimiter).items()
        }
        rows = _Rows(len(lines), values)
        self._ids(rows)
        self._scalars(rows)
        self._times(rows)
        self._gpus(rows)
        _run_end(rows)
        rows.set("source_line", numbers)
        table = pa.Table.from_arrays(
            [rows.columns[f.name].cast(f.type) for f in SCHEMA], schema=SCHEMA
        )
        bad = rows.bad.to_numpy(zero_copy_only=False)
        sourced = pc.and_(pc.is_valid(rows.gpu_source), pa.array(~bad))
        sources = rows.gpu_source.filter(sourced).to_pylist()
        lines_sourced = numbers.filter(sourced).to_pylist()
        return Read(
            rows=table.filter(pa.array(~bad)) if bad.any() else table,
            unread=np.flatnonzero(bad).tolist(),
            gpu_sources=list(zip(lines_sourced, sources, strict=True)),
        )

    def _ids(self, rows: _Rows) -> None:
        job_id = rows.value("jobid")
        parts = pc.extract_regex(job_id, _JOB_ID)
        rows.unread_where(pc.invert(pc.string_is_ascii(job_id)))
        rows.unread_where(pc.is_null(parts))
        job = pc.struct_field(parts, "job")
        step = pc.struct_field(parts, "step")
        rows.unread_where(pc.match_substring_regex(job, r"[\[\]]"))
        rows.unread_where(pc.match_substring_regex(job, r"^[0-9]+\+[0-9]{19}"))
        task = _extract(job, "_", _ARRAY_TASK)
        het = _extract(job, "+", _HET_COMPONENT)
        rows.set("job_id", job)
        rows.set("step_id", _none_if_empty(step))
        rows.set("array_job_id", pc.struct_field(task, "array"))
        rows.set("array_task_id", pc.struct_field(task, "task"))
        rows.set("het_job_id", pc.struct_field(het, "het"))
        rows.set("het_job_offset", pc.struct_field(het, "offset").cast(pa.int64()))

    def _scalars(self, rows: _Rows) -> None:
        cluster = rows.value("cluster")
        option = pa.scalar(self.cluster, pa.string())
        named = pc.if_else(pc.equal(cluster, ""), option, cluster)
        rows.unread_where(pc.is_null(named))
        rows.set("cluster", named)
        for column, name in (
            ("job_id_raw", "jobidraw"), ("job_name", "jobname"), ("user_name", "user"),
            ("uid", "uid"), ("group_name", "group"), ("gid", "gid"), ("account", "account"),
            ("partition", "partition"), ("qos", "qos"), ("alloc_tres", "alloctres"),
            ("req_tres", "reqtres"),
        ):  # fmt: skip
            rows.set(column, _none_if_empty(rows.value(name)))
        rows.spread(self.states, "state", {"state": 0, "state_detail": 1})
        rows.spread(self.exit_codes, "exitcode", {"exit_code": 0, "exit_signal": 1})
        rows.spread(self.nodes, "nodelist", {"node_list": "node_list", "node_names": "node_names"})
        elapsed = rows.duration("elapsed")
        rows.unread_where(pc.greater(elapsed, _MAX_ELAPSED_SECONDS))
        rows.set("elapsed_seconds", elapsed)
        rows.spread(self.limits, "timelimit", {"timelimit_minutes": 0})
        rows.set("node_count", rows.integer(rows.value("nnodes")))
        cpus = rows.value("ncpus")
        rows.set(
            "cpu_count", rows.integer(pc.if_else(pc.equal(cpus, ""), rows.value("alloccpus"), cpus))
        )

    def _times(self, rows: _Rows) -> None:
        for column, name in (
            ("submit_at", "submit"),
            ("eligible_at", "eligible"),
            ("start_at", "start"),
            ("end_at", "end"),
        ):
            rows.set(column, self._time(rows, name))

    def _time(self, rows: _Rows, name: str) -> pa.Array:
        values = rows.value(name)
        iso = pc.match_substring_regex(values, _ISO_TIME)  # (ASCII only, like NO_TIME)
        parsed = pc.strptime(
            pc.if_else(iso, values, pa.scalar(None, pa.string())),
            format=TIME_FORMAT,
            unit="us",
            error_is_null=True,
        )
        # strptime rolls 2026-02-30 over to March: a time on another day than written is not read
        day = pc.utf8_slice_codeunits(values, 8, 10)
        exact = pc.equal(
            pc.day(parsed), pc.if_else(iso, day, pa.scalar(None, pa.string())).cast(pa.int64())
        )
        read = pc.fill_null(exact, False)
        if self.timezone != "UTC":
            parsed, read = _in_zone(parsed, read, self.timezone)
        times = pc.if_else(read, parsed, pa.scalar(None, parsed.type))
        unread = np.flatnonzero(~read.to_numpy(zero_copy_only=False))
        if not len(unread):
            return times
        # of the values not read as ISO times, those saying "no time" (Unknown, None, ...)
        # are null; the rest are read one by one
        unset = pc.is_in(pc.ascii_lower(values.take(unread)), value_set=_NO_TIME)
        at = unread[~unset.to_numpy(zero_copy_only=False)]
        if not len(at):
            return times
        rest = np.zeros(len(values), dtype=bool)
        rest[at] = True
        others = []
        for index, value in zip(at.tolist(), values.take(at).to_pylist(), strict=True):
            try:
                others.append(time_value(value, name, self.timezone))
            except FieldError:
                rows.unread_index(index)
                others.append(None)
        return pc.replace_with_mask(times, pa.array(rest), pa.array(others, pa.timestamp("us")))

    def _gpus(self, rows: _Rows) -> None:
        present = tuple(name for name in _GPU_COLUMNS if name in rows.values)
        started = pc.is_valid(rows.columns["start_at"]) if "start" in rows.values else None
        flags = pc.binary_join_element_wise(
            _flag(started, rows.count), _flag(pc.is_null(rows.columns["step_id"]), rows.count), ""
        )
        key = pc.binary_join_element_wise(*(rows.values[n] for n in present), flags, "\n")
        if present not in self.gpus:
            self.gpus[present] = Distinct(lambda value: _gpu_counts(present, value))
        results, indices = self.gpus[present](key)
        fields = ("alloc_gpu_count", "req_gpu_count", "gpu_type", "mig_profile", "source")
        rows.spread_results(results, indices, {f: f for f in fields})
        rows.gpu_source = rows.columns.pop("source")


def _split(lines: pa.Array, columns: tuple[str, ...], delimiter: str) -> dict[str, pa.Array]:
    """The fields of each line by column name (each line holds at least the columns): by
    Arrow's CSV reader, quoting off, for a one-character ASCII delimiter (lines holding a carriage
    return or starting with a byte order mark, which it reads otherwise, are never regular)."""
    if len(delimiter) != 1 or not delimiter.isascii() or not len(lines):
        parts = pc.split_pattern(lines, pattern=delimiter)
        return {name: pc.list_element(parts, i) for i, name in enumerate(columns) if name}
    joined = pc.binary_join(
        pa.ListArray.from_arrays(pa.array([0, len(lines)], pa.int32()), lines), "\n"
    )
    width = len(lines[0].as_py().split(delimiter))
    names = [f"{i}" for i in range(width)]
    buffer = joined[0].as_buffer()
    table = pacsv.read_csv(
        pa.BufferReader(buffer),
        read_options=pacsv.ReadOptions(
            column_names=names, use_threads=False, block_size=buffer.size + 1
        ),
        parse_options=pacsv.ParseOptions(
            delimiter=delimiter,
            quote_char=False,
            double_quote=False,
            escape_char=False,
            newlines_in_values=False,
            ignore_empty_lines=False,
        ),
        convert_options=pacsv.ConvertOptions(
            column_types=dict.fromkeys(names, pa.string()),
            strings_can_be_null=False,
            include_columns=[f"{i}" for i, name in enumerate(columns) if name],
        ),
    )
    return {name: table[f"{i}"].combine_chunks() for i, name in enumerate(columns) if name}


def _gpu_counts(present: tuple[str, ...], key: str) -> dict[str, object]:
    """The GPU columns and the legacy GPU source of a record, from `_gpus`' key."""
    *texts, flags = key.split("\n")
    values = dict(zip(present, texts, strict=True))
    values["start"] = "started" if flags[0] == "1" else ""
    alloc, req, source = gpus(values, flags[1] == "1")
    return gpu_fields(alloc, req) | {"source": source if alloc.count or req.count else None}


def _extract(values: pa.Array, char: str, pattern: str) -> pa.Array:
    """The regular expression's groups in each value (null where it does not match), looked
    for only when some value holds `char`."""
    if not pc.any(pc.match_substring(values, char)).as_py():
        groups = [pa.field(name, pa.string()) for name in re.findall(r"\?P<(\w+)>", pattern)]
        return pa.nulls(len(values), pa.struct(groups))
    return pc.extract_regex(values, pattern)


def _timelimit_minutes(value: str) -> tuple[int | None]:
    """`record.record_rows`' Timelimit: whole minutes, None for no limit."""
    try:
        seconds = parse_duration_seconds(value)
    except ValueError as err:
        raise FieldError("Timelimit", str(err)) from None
    return (None if seconds is None else seconds // 60,)


def _flag(mask: pa.Array | None, count: int) -> pa.Array:
    if mask is None:
        return pa.array(["0"] * count, pa.string())
    return pc.if_else(mask, "1", "0")


def _none_if_empty(values: pa.Array) -> pa.Array:
    return pc.if_else(pc.equal(values, ""), pa.scalar(None, pa.string()), values)


def _in_zone(parsed: pa.Array, read: pa.Array, timezone: str) -> tuple[pa.Array, pa.Array]:
    """Zone-less times read in `timezone`, to naive UTC: a time the zone's clock skips or
    repeats (a daylight-saving change) is left to the per-value reading, as is every time
    when Arrow does not know the zone."""
    try:
        early = pc.assume_timezone(parsed, timezone, ambiguous="earliest", nonexistent="earliest")
        late = pc.assume_timezone(parsed, timezone, ambiguous="latest", nonexistent="latest")
    except pa.ArrowException:
        return parsed, pa.array([False] * len(parsed))
    plain = pc.fill_null(pc.equal(early, late), False)
    return early.cast(pa.timestamp("us")), pc.and_(read, plain)


def _run_end(rows: _Rows) -> None:
    """`record.with_run_end`: a running job's provisional end (Start + Elapsed), the basis."""
    start, end = rows.columns["start_at"], rows.columns["end_at"]
    elapsed = pc.multiply(rows.columns["elapsed_seconds"], 1_000_000).cast(pa.duration("us"))
    provisional = pc.if_else(pc.is_null(end), pc.add(start, elapsed), pa.scalar(None, start.type))
    basis = pc.if_else(
        pc.is_valid(end),
        "reported",
        pc.if_else(pc.is_valid(provisional), "elapsed", pa.scalar(None, pa.string())),
    )
    rows.set("provisional_end_at", provisional)
    rows.set("end_basis", basis)


_NO_TIME = pa.array(sorted(NO_TIME), pa.string())
_NO_LIMIT = pa.array(sorted(NO_LIMIT), pa.string())


class _Rows:
    """The columns being built for `count` lines, and which lines are left unread."""

    def __init__(self, count: int, values: dict[str, pa.Array]) -> None:
        self.count = count
        self.values = values
        self.columns: dict[str, pa.Array] = {}
        self.bad = pa.array(np.zeros(count, dtype=bool))
        self.gpu_source: pa.Array = pa.nulls(count, pa.string())
        self._empty = pa.array([""] * count, pa.string())

    def value(self, name: str) -> pa.Array:
        """A column's values; "" for every line when the layout has no such column."""
        return self.values.get(name, self._empty)

    def set(self, column: str, array: pa.Array) -> None:
        self.columns[column] = array

    def unread_where(self, mask: pa.Array) -> None:
        self.bad = pc.or_(self.bad, pc.fill_null(mask, False))

    def unread_index(self, index: int) -> None:
        mask = np.zeros(self.count, dtype=bool)
        mask[index] = True
        self.unread_where(pa.array(mask))

    def spread(self, distinct: Distinct, name: str, fields: dict[str, object]) -> None:
        results, indices = distinct(self.value(name))
        self.spread_results(results, indices, fields)

    def spread_results(
        self, results: list[object], indices: pa.Array, fields: dict[str, object]
    ) -> None:
        """Set each column of `fields` from the distinct results (`column: key in a result`)."""
        unread = [result is _UNREAD for result in results]
        if any(unread):
            self.unread_where(pa.array(unread).take(indices))
        for column, key in fields.items():
            picked = [None if r is _UNREAD else r[key] for r in results]  # type: ignore[index]
            self.columns[column] = pa.array(picked).take(indices)

    def duration(self, name: str) -> pa.Array:
        """`values.parse_duration_seconds` of a column: seconds, None for no limit."""
        values = self.value(name)
        ascii_ = pc.string_is_ascii(values)
        unlimited = pc.and_(ascii_, pc.is_in(pc.ascii_lower(values), value_set=_NO_LIMIT))
        match = pc.extract_regex(values, _DURATION)
        self.unread_where(pc.invert(pc.or_(unlimited, pc.and_(ascii_, pc.is_valid(match)))))
        total = None
        for group, scale in (("days", 24), ("hours", 60), ("minutes", 60), ("seconds", 1)):
            digits = pc.struct_field(match, group)
            number = pc.if_else(pc.equal(digits, ""), "0", digits).cast(pa.int64())
            total = number if total is None else pc.add(total, number)
            total = pc.multiply(total, scale) if scale != 1 else total
        return pc.if_else(unlimited, pa.scalar(None, pa.int64()), total)

    def integer(self, values: pa.Array) -> pa.Array:
        """`record._int_column`: None when empty, else ASCII digits."""
        digits = pc.match_substring_regex(values, _UINT)
        self.unread_where(pc.and_(pc.not_equal(values, ""), pc.invert(digits)))
        return pc.if_else(digits, values, pa.scalar(None, pa.string())).cast(pa.int64())
