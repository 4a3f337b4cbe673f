"""Parse Slurm accounting output (`sacct --parsable2`, `--parsable`, `--json`) into SlurmJob rows.

Pure functions, no I/O. Every input record is either landed (one or more rows) or rejected
with its line, the sacct field at fault and a reason.

Rows whose JobID has a `.` are job steps (`11.batch`, `11.extern`, `13.0`, `16_0.batch`): they
go to STEPS_TABLE with `step_id` set and `job_id` the parent's id, never to JOBS_TABLE, so a
step's AllocTRES (which repeats the job's) is never counted as a second job.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
from collections.abc import Mapping
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from extractors.records import ParseResult
from extractors.slurm.records import JOBS_TABLE, STEPS_TABLE, SlurmJob
from extractors.slurm.sacct_json import land_job
from extractors.slurm.values import (
    FieldError,
    GpuTres,
    array_task,
    expand_array_spec,
    gpu_fields,
    gpu_tres,
    is_uint,
    node_fields,
    parse_duration_seconds,
    parse_tres,
    split_state,
)
from extractors.timeparse import parse_timestamp

# The field list of Open XDMoD's documented `sacct --parsable2 --noheader` command, in order.
XDMOD_FIELDS = (
    "jobid", "jobidraw", "cluster", "partition", "qos", "account", "group", "gid", "user", "uid",
    "submit", "eligible", "start", "end", "elapsed", "exitcode", "state", "nnodes", "ncpus",
    "reqcpus", "reqmem", "reqtres", "alloctres", "timelimit", "nodelist", "jobname",
)  # fmt: skip

# sacct's own spelling of the columns we read: used as the `field` of a rejection.
_DISPLAY = {
    "jobid": "JobID", "jobidraw": "JobIDRaw", "cluster": "Cluster", "partition": "Partition",
    "qos": "QOS", "account": "Account", "group": "Group", "gid": "GID", "user": "User",
    "uid": "UID", "submit": "Submit", "eligible": "Eligible", "start": "Start", "end": "End",
    "elapsed": "Elapsed", "exitcode": "ExitCode", "state": "State", "nnodes": "NNodes",
    "ncpus": "NCPUS", "reqcpus": "ReqCPUS", "reqmem": "ReqMem", "reqtres": "ReqTRES",
    "alloctres": "AllocTRES", "timelimit": "Timelimit", "nodelist": "NodeList",
    "jobname": "JobName",
}  # fmt: skip

# Every field name `sacct --helpformat` lists (lower case), to recognise sacct's header line.
_SACCT_FIELDS = frozenset(XDMOD_FIELDS) | {
    "admincomment", "alloccpus", "allocgres", "allocnodes", "associd", "avecpu", "avecpufreq",
    "avediskread", "avediskwrite", "avepages", "averss", "avevmsize", "blockid", "comment",
    "constraints", "consumedenergy", "consumedenergyraw", "container", "cputime", "cputimeraw",
    "dbindex", "derivedexitcode", "elapsedraw", "extra", "failednode", "flags", "layout",
    "licenses", "maxdiskread", "maxdiskreadnode", "maxdiskreadtask", "maxdiskwrite",
    "maxdiskwritenode", "maxdiskwritetask", "maxpages", "maxpagesnode", "maxpagestask", "maxrss",
    "maxrssnode", "maxrsstask", "maxvmsize", "maxvmsizenode", "maxvmsizetask", "mcslabel",
    "mincpu", "mincpunode", "mincputask", "ntasks", "planned", "plannedcpu", "plannedcpuraw",
    "priority", "qosraw", "qosreq", "reason", "reqcpufreq", "reqcpufreqgov", "reqcpufreqmax",
    "reqcpufreqmin", "reqgres", "reqnodes", "reservation", "reservationid", "reserved", "resvcpu",
    "resvcpuraw", "stdin", "stdout", "stderr", "submitline", "suspended", "systemcomment",
    "systemcpu", "timelimitraw", "totalcpu", "tresusageinave", "tresusageinmax",
    "tresusageinmaxnode", "tresusageinmaxtask", "tresusageinmin", "tresusageinminnode",
    "tresusageinmintask", "tresusageintot", "tresusageoutave", "tresusageoutmax",
    "tresusageoutmaxnode", "tresusageoutmaxtask", "tresusageoutmin", "tresusageoutminnode",
    "tresusageoutmintask", "tresusageouttot", "usercpu", "wckey", "wckeyid", "workdir",
}  # fmt: skip

FIXED_WIDTH_REASON = (
    "fixed-width sacct output is not supported (columns may be truncated with '+'); "
    "run sacct with --parsable2"
)
_NO_TIME = frozenset({"", "unknown", "none"})
_ARRAY_TASK = re.compile(r"^(\d+)_(\d+)$")
_ARRAY_PENDING = re.compile(r"^(\d+)_\[([^\]]*)\]$")


# --- sacct --parsable2 / --parsable text --------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Layout:
    """How the data lines of a section are split: by a header's columns, or XDMoD's 26."""

    columns: tuple[str, ...]  # lower-case sacct names, "" for an unknown column
    trailing_pipe: bool  # --parsable: every line ends with one extra `|`
    from_header: bool


_XDMOD_LAYOUT = _Layout(columns=XDMOD_FIELDS, trailing_pipe=False, from_header=False)


def parse_sacct_text(
    text: str, *, cluster: str | None = None, timezone: str = "UTC"
) -> ParseResult:
    """Parse `sacct --parsable2` (or `--parsable`) output into JOBS_TABLE and STEPS_TABLE rows.

    If the first non-empty line is sacct's own header (`JobID|JobName|...`), columns are read
    by name, in any order and subset; unknown columns are ignored. A header line later in the
    text (concatenated outputs) switches the columns for the lines after it. Without a header,
    Open XDMoD's 26 fields (`XDMOD_FIELDS`) are assumed and a line is split into at most 26
    fields, so `jobname` may contain `|`. `--parsable` output (one trailing `|` per line) is
    accepted. Header lines and blank lines are not records: every other line counts once in
    `records_read` and lands (one row, or one per task of a pending array `1_[1-3]`) or is
    rejected. Line numbers are 1-based physical lines of `text`.

    Zone-less times are read in `timezone` (an IANA name) and stored as naive UTC; times
    with an offset (`+0100`, `+01:00`, `Z`) are converted to UTC.
    """
    try:  # an unknown zone is the caller's error: raise before reading anything
        ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError) as err:
        raise ValueError(f"unknown timezone {timezone!r}") from err
    result = ParseResult()
    layout: _Layout | None = None
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        header = _header_layout(line)
        if header is not None:
            layout = header
            continue
        layout = layout or _XDMOD_LAYOUT
        result.records_read += 1
        try:
            values = _split_line(line, layout)
            rows = _text_rows(values, cluster=cluster, timezone=timezone, line=number)
        except FieldError as err:
            result.reject(number, err.field, err.reason, line)
            continue
        for row in rows:
            result.add(STEPS_TABLE if row.step_id is not None else JOBS_TABLE, row)
    return result


def _header_layout(line: str) -> _Layout | None:
    """A _Layout when `line` is sacct's header (every column a known sacct field name)."""
    names = [name.strip().lower() for name in line.split("|")]
    trailing = len(names) > 1 and names[-1] == ""
    if trailing:
        names.pop()
    if not names or not all(name in _SACCT_FIELDS for name in names):
        return None
    columns = tuple(name if name in _DISPLAY else "" for name in names)
    return _Layout(columns=columns, trailing_pipe=trailing, from_header=True)


def _split_line(line: str, layout: _Layout) -> dict[str, str]:
    expected = len(layout.columns)
    if expected > 1 and "|" not in line:
        raise FieldError("line", FIXED_WIDTH_REASON)
    if layout.trailing_pipe and line.endswith("|"):
        line = line[:-1]
    elif not layout.from_header and line.endswith("|") and line.count("|") >= expected:
        line = line[:-1]  # --parsable without a header
    # JobName last (as in XDMoD's list) may itself contain `|`.
    maxsplit = expected - 1 if layout.columns[-1] == "jobname" else -1
    fields = line.split("|", maxsplit)
    if len(fields) != expected:
        raise FieldError("line", f"expected {expected} fields, got {len(fields)}")
    values = {name: value.strip() for name, value in zip(layout.columns, fields, strict=True)}
    values.pop("", None)
    if "jobid" not in values:
        raise FieldError("JobID", "no JobID column in the sacct header")
    return values


def _text_rows(
    values: Mapping[str, str], *, cluster: str | None, timezone: str, line: int
) -> list[SlurmJob]:
    """The SlurmJob rows of one parsed line (several for a pending array record)."""
    job_id, step_id = _split_job_id(values["jobid"])
    state, state_detail = split_state(values.get("state", ""))
    exit_code, exit_signal = _exit_code(values.get("exitcode", ""))
    alloc, req = _tres_column(values, "alloctres"), _tres_column(values, "reqtres")
    elapsed = _duration_column(values, "elapsed")
    timelimit = _duration_column(values, "timelimit")
    row = SlurmJob(
        cluster=values.get("cluster") or cluster or "default",
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
        start_at=_time_column(values, "start", timezone),
        end_at=_time_column(values, "end", timezone),
        elapsed_seconds=elapsed,
        timelimit_minutes=None if timelimit is None else timelimit // 60,
        node_count=_int_column(values, "nnodes"),
        cpu_count=_int_column(values, "ncpus"),
        **node_fields(values.get("nodelist", ""), "NodeList"),
        alloc_tres=values.get("alloctres") or None,
        req_tres=values.get("reqtres") or None,
        **gpu_fields(alloc, req),
        source_line=line,
    )
    return _with_array_ids(row)


def _split_job_id(value: str) -> tuple[str, str | None]:
    """`16_0.batch` -> ("16_0", "batch"); `11` -> ("11", None)."""
    if not value:
        raise FieldError("JobID", "empty JobID")
    job_id, dot, step_id = value.partition(".")
    if not job_id or (dot and not step_id):
        raise FieldError("JobID", f"invalid JobID {value!r}")
    return job_id, step_id if dot else None


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
        raise FieldError(_DISPLAY[name], f"invalid timestamp {value!r}") from None


def _duration_column(values: Mapping[str, str], name: str) -> int | None:
    try:
        return parse_duration_seconds(values.get(name, ""))
    except ValueError as err:
        raise FieldError(_DISPLAY[name], str(err)) from None


def _int_column(values: Mapping[str, str], name: str) -> int | None:
    value = values.get(name, "")
    if not value:
        return None
    if not is_uint(value):
        raise FieldError(_DISPLAY[name], f"invalid integer {value!r}")
    return int(value)


def _tres_column(values: Mapping[str, str], name: str) -> GpuTres:
    try:
        return gpu_tres(parse_tres(values.get(name, "")))
    except ValueError as err:
        raise FieldError(_DISPLAY[name], str(err)) from None


# --- sacct --json ---------------------------------------------------------------------------


def parse_sacct_json(text: str, *, cluster: str | None = None) -> ParseResult:
    """Parse `sacct --json` into JOBS_TABLE and STEPS_TABLE rows.

    Reads openapi dbv0.0.37 (Slurm 21.08), dbv0.0.38 (22.05) and data_parser v0.0.40+
    (numbers wrapped as `{"set", "infinite", "number"}`, `state.current` a list). Times are
    epoch seconds (0 means unset) and land as naive UTC. An array task gets the job_id
    `<array.job_id>_<array.task_id>`, like sacct's text; its raw id is in `job_id_raw`.

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
    return result
