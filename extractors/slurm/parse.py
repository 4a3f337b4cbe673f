"""Parse Slurm accounting output (`sacct --parsable2`, `--parsable`, `--json`) into SlurmJob rows.

Pure functions, no I/O. Every input record is either landed (one or more rows) or rejected
with its line, the sacct field at fault and a reason.

Rows whose JobID has a `.` are job steps (`11.batch`, `11.extern`, `13.0`, `16_0.batch`): they
go to STEPS_TABLE with `step_id` set and `job_id` the parent's id, never to JOBS_TABLE, so a
step's AllocTRES (which repeats the job's) is never counted as a second job. A step whose job
is neither in the batch nor landed before is an orphan (extractors.slurm.steps).

A job still running (End `Unknown`) ends provisionally at Start + Elapsed, the instant sacct
saw it; the latest such instant is the output's extraction instant (basis `sacct_elapsed`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
from collections.abc import Callable, Mapping
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from extractors.records import ParseResult
from extractors.slurm.records import JOBS_TABLE, STEPS_TABLE, SlurmJob
from extractors.slurm.sacct_json import land_job
from extractors.slurm.text import (
    DISPLAY,
    FIXED_WIDTH_REASON,
    XDMOD_FIELDS,
    XDMOD_LEGACY_FIELDS,
    field_at,
    sacct_records,
    split_record,
)
from extractors.slurm.values import (
    FieldError,
    GpuTres,
    array_task,
    expand_array_spec,
    gpu_fields,
    gpu_tres,
    gres_gpus,
    is_uint,
    node_fields,
    parse_duration_seconds,
    parse_tres,
    split_state,
)
from extractors.timeparse import parse_timestamp

__all__ = [
    "FIXED_WIDTH_REASON",
    "XDMOD_FIELDS",
    "XDMOD_LEGACY_FIELDS",
    "parse_sacct_json",
    "parse_sacct_text",
]

EXTRACTED_AT_BASIS = "sacct_elapsed"
_NO_TIME = frozenset({"", "unknown", "none"})
_ARRAY_TASK = re.compile(r"^(\d+)_(\d+)$")
_ARRAY_PENDING = re.compile(r"^(\d+)_\[([^\]]*)\]$")
_HET_COMPONENT = re.compile(r"^(\d+)\+(\d+)$")


# --- sacct --parsable2 / --parsable text --------------------------------------------------


def parse_sacct_text(
    text: str,
    *,
    cluster: str | None = None,
    timezone: str = "UTC",
    delimiter: str | None = None,
) -> ParseResult:
    """Parse `sacct --parsable2` (or `--parsable`) output into JOBS_TABLE and STEPS_TABLE rows.

    Records are read as `extractors.slurm.text` describes (header lines, the delimiter,
    fields holding a newline). With a header, columns are read by name, in any order and
    subset; unknown columns are ignored; a header without Cluster needs `cluster` (else
    ValueError: the same jobs would land under two names). Every record counts once in
    `records_read` and lands (one row, or one per task of a pending array `1_[1-3]`) or is
    rejected; its line is the 1-based physical line where it starts.

    Zone-less times are read in `timezone` (an IANA name) and stored as naive UTC; times
    with an offset (`+0100`, `+01:00`, `Z`) are converted to UTC.
    """
    try:  # an unknown zone is the caller's error: raise before reading anything
        ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError) as err:
        raise ValueError(f"unknown timezone {timezone!r}") from err
    result = ParseResult()
    gpus_from: dict[str, list[int]] = {}
    for record in sacct_records(text, delimiter):
        layout = record.layout
        if layout.header_line is not None and "cluster" not in layout.columns and not cluster:
            raise ValueError(
                f"line {layout.header_line}: the sacct header has no Cluster column: give "
                "--cluster NAME (the cluster these jobs ran on)"
            )
        result.records_read += 1
        try:
            values = split_record(record)
            rows, source = _text_rows(values, cluster=cluster, timezone=timezone, line=record.line)
        except FieldError as err:
            result.reject(record.line, err.field, err.reason, record.text)
            continue
        if source is not None:
            gpus_from.setdefault(source, []).append(record.line)
        for row in rows:
            result.add(STEPS_TABLE if row.step_id is not None else JOBS_TABLE, row)
    for source, lines in gpus_from.items():
        result.warn(_gpu_source_warning(source, lines))
    date_extraction(result)
    return result


def _gpu_source_warning(source: str, lines: list[int]) -> str:
    shown = ", ".join(map(str, lines[:10])) + (", ..." if len(lines) > 10 else "")
    if source == "ReqTRES":
        return (
            f"{len(lines)} started job(s) request GPUs but the output has no AllocTRES column "
            f"(lines {shown}): they count 0 allocated GPUs; add AllocTRES to sacct --format"
        )
    return (
        f"{len(lines)} job(s) count their GPUs from the legacy {source} column only "
        f"(lines {shown}); AllocTRES, where sacct has it, says what was allocated"
    )


def _text_rows(
    values: Mapping[str, str], *, cluster: str | None, timezone: str, line: int
) -> tuple[list[SlurmJob], str | None]:
    """The SlurmJob rows of one record (several for a pending array record), and the column
    its GPU count comes from when that is not AllocTRES (for the ingest's warning)."""
    job_id, step_id = _split_job_id(values["jobid"])
    state, state_detail = split_state(values.get("state", ""))
    exit_code, exit_signal = _exit_code(values.get("exitcode", ""))
    alloc, req, source = _gpus(values, step_id is None)
    start_at = _time_column(values, "start", timezone)
    end_at = _time_column(values, "end", timezone)
    elapsed = _duration_column(values, "elapsed")
    timelimit = _duration_column(values, "timelimit")
    row_cluster = values.get("cluster") or cluster
    if not row_cluster:
        raise FieldError("Cluster", "empty Cluster: give --cluster NAME")
    row = SlurmJob(
        cluster=row_cluster,
        job_id=job_id,
        job_id_raw=values.get("jobidraw") or None,
        array_job_id=None,
        array_task_id=None,
        step_id=step_id,
        job_name=values.get("jobname") or None,
        user_name=values.get("user") or None,
        uid=values.get("uid") or None,
        group_name=values.get("group") or None,
        gid=values.get("gid") or None,
        account=values.get("account") or None,
        partition=values.get("partition") or None,
        qos=values.get("qos") or None,
        state=state,
        state_detail=state_detail,
        exit_code=exit_code,
        exit_signal=exit_signal,
        submit_at=_time_column(values, "submit", timezone),
        eligible_at=_time_column(values, "eligible", timezone),
        start_at=start_at,
        end_at=end_at,
        elapsed_seconds=elapsed,
        timelimit_minutes=None if timelimit is None else timelimit // 60,
        node_count=_int_column(values, "nnodes"),
        cpu_count=_int_column(values, "ncpus" if values.get("ncpus") else "alloccpus"),
        **node_fields(values.get("nodelist", ""), "NodeList"),
        alloc_tres=values.get("alloctres") or None,
        req_tres=values.get("reqtres") or None,
        **gpu_fields(alloc, req),
        source_line=line,
    )
    return _with_array_ids(with_run_end(row)), source if alloc.count or req.count else None


def _gpus(values: Mapping[str, str], is_job: bool) -> tuple[GpuTres, GpuTres, str | None]:
    """(allocated, requested, the column the allocation comes from when not AllocTRES).

    AllocTRES wins; without a GPU there, the legacy AllocGRES; an output with neither column
    (XDMoD's 25 fields) has a started job's GPUs in ReqGRES, as XDMoD's shredder reads them.
    """
    alloc, req = _tres_column(values, "alloctres"), _tres_column(values, "reqtres")
    if not req.count and "reqgres" in values:
        req = _gres_column(values, "reqgres")
    if alloc.count or not is_job:
        return alloc, req, None
    if "allocgres" in values:
        gres = _gres_column(values, "allocgres")
        return gres, req, "AllocGRES" if gres.count else None
    started = values.get("start", "").lower() not in _NO_TIME
    if "alloctres" in values or not started:
        return alloc, req, None
    if "reqgres" in values:
        return _gres_column(values, "reqgres"), req, "ReqGRES"
    return alloc, req, "ReqTRES" if req.count else None


def _split_job_id(value: str) -> tuple[str, str | None]:
    """`16_0.batch` -> ("16_0", "batch"); `11` -> ("11", None)."""
    if not value:
        raise FieldError("JobID", "empty JobID")
    job_id, dot, step_id = value.partition(".")
    if not job_id or (dot and not step_id):
        raise FieldError("JobID", f"invalid JobID {value!r}")
    return job_id, step_id if dot else None


def with_run_end(row: SlurmJob) -> SlurmJob:
    """The row with its end's basis, a running job's provisional end (Start + Elapsed) and
    a heterogeneous job's component ids (`176+1`: job 176, offset 1)."""
    het = _HET_COMPONENT.match(row.job_id)
    provisional = None
    if row.end_at is None and row.start_at is not None and row.elapsed_seconds is not None:
        provisional = row.start_at + dt.timedelta(seconds=row.elapsed_seconds)
    basis = "reported" if row.end_at else "elapsed" if provisional else None
    return dataclasses.replace(
        row,
        het_job_id=het[1] if het else None,
        het_job_offset=int(het[2]) if het else None,
        provisional_end_at=provisional,
        end_basis=basis,
    )


def date_extraction(result: ParseResult) -> None:
    """The output's extraction instant: the latest Start + Elapsed of a running job or step
    (sacct computes Elapsed when it runs); none when nothing runs."""
    ends = [
        row.provisional_end_at
        for table in (JOBS_TABLE, STEPS_TABLE)
        for row in result.tables.get(table, [])
        if row.provisional_end_at is not None  # type: ignore[attr-defined]
    ]
    if ends:
        result.extracted_at, result.extracted_at_basis = max(ends), EXTRACTED_AT_BASIS


def _with_array_ids(row: SlurmJob) -> list[SlurmJob]:
    """Set the array ids of `6_0`; expand a pending array record `4103947_[9-11,20]`."""
    task = _ARRAY_TASK.match(row.job_id)
    if task:
        return [dataclasses.replace(row, array_job_id=task[1], array_task_id=task[2])]
    pending = _ARRAY_PENDING.match(row.job_id)
    if pending is None:
        if "[" in row.job_id or "]" in row.job_id:
            raise FieldError("JobID", f"invalid array JobID {row.job_id!r}")
        return [row]
    if row.step_id is not None:
        return [dataclasses.replace(row, array_job_id=pending[1])]
    try:
        tasks = expand_array_spec(pending[2])
    except ValueError as err:
        raise FieldError("JobID", str(err)) from None
    return [array_task(row, pending[1], task) for task in tasks]


def _exit_code(value: str) -> tuple[int | None, int | None]:
    if not value:
        return None, None
    code, sep, signal = value.partition(":")
    if not (is_uint(code) and (not sep or is_uint(signal))):
        raise FieldError("ExitCode", f"invalid exit code {value!r} (expected code:signal)")
    return int(code), int(signal) if sep else None


def _time_column(values: Mapping[str, str], name: str, timezone: str) -> dt.datetime | None:
    value = values.get(name, "")
    if value.lower() in _NO_TIME:
        return None
    try:
        return parse_timestamp(value, timezone)
    except ValueError:
        raise FieldError(DISPLAY[name], f"invalid timestamp {value!r}") from None


def _duration_column(values: Mapping[str, str], name: str) -> int | None:
    try:
        return parse_duration_seconds(values.get(name, ""))
    except ValueError as err:
        raise FieldError(DISPLAY[name], str(err)) from None


def _int_column(values: Mapping[str, str], name: str) -> int | None:
    value = values.get(name, "")
    if not value:
        return None
    if not is_uint(value):
        raise FieldError(DISPLAY[name], f"invalid integer {value!r}")
    return int(value)


def _tres_column(values: Mapping[str, str], name: str) -> GpuTres:
    try:
        return gpu_tres(parse_tres(values.get(name, "")))
    except ValueError as err:
        raise FieldError(DISPLAY[name], str(err)) from None


def _gres_column(values: Mapping[str, str], name: str) -> GpuTres:
    return gres_gpus(values.get(name, ""))


# --- sacct --json ---------------------------------------------------------------------------


def parse_sacct_json(text: str, *, cluster: str | None = None) -> ParseResult:
    """Parse `sacct --json` into JOBS_TABLE and STEPS_TABLE rows.

    Reads openapi dbv0.0.37 (Slurm 21.08), dbv0.0.38 (22.05) and data_parser v0.0.40+
    (numbers wrapped as `{"set", "infinite", "number"}`, `state.current` a list). Times are
    epoch seconds (0 means unset) and land as naive UTC. An array task gets the job_id
    `<array.job_id>_<array.task_id>`, like sacct's text; its raw id is in `job_id_raw`.
    A heterogeneous job's component gets `<het.job_id>+<het.job_offset>`, like the text.

    `records_read` counts jobs plus steps. The `line` of a rejection is the index of the job
    in `jobs` plus 1 (the same for its steps, which are rejected with it when the job is).
    Invalid JSON is one rejection (field "json") at the decoder's line, counted as one record.

    The exit code is what the JSON says (`exit_code`, else `derived_exit_code`); Slurm 22.05
    reports 0 for a FAILED job there although the text output says 1:0. Like the text output,
    a step row carries the job's cluster and account but no user, partition or QOS.
    """
    result = ParseResult()
    try:
        document = json.loads(text)
    except json.JSONDecodeError as err:
        result.records_read = 1
        raw = text.split("\n")[err.lineno - 1][:2000]
        result.reject(err.lineno, "json", f"invalid JSON: {err.msg} (column {err.colno})", raw)
        return result
    jobs = document.get("jobs") if isinstance(document, dict) else None
    if not isinstance(jobs, list):
        result.records_read = 1
        result.reject(1, "jobs", "no 'jobs' list in the sacct --json document", text[:200])
        return result
    for index, job in enumerate(jobs):
        land_job(result, job, index + 1, cluster)
    for table, rows in result.tables.items():
        result.tables[table] = [with_run_end(row) for row in rows]  # type: ignore[arg-type]
    date_extraction(result)
    return result


def slurm_field_at(delimiter: str | None) -> Callable[[str, int, int], str | None]:
    """A FieldAt for sacct text (extractors.filebatch): the column at an invalid byte."""
    return lambda text, line, column: field_at(text, line, column, delimiter)
