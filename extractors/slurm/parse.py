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
import itertools
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from extractors.records import ParseResult
from extractors.slurm.records import JOBS_TABLE, STEPS_TABLE, SlurmJob
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
MAX_ARRAY_TASKS = 100_000  # a pending array record expanding past this is rejected
_NO_TIME = frozenset({"", "unknown", "none"})
_NO_LIMIT = frozenset({"", "unlimited", "partition_limit", "none"})
_DURATION = re.compile(r"^(?:(?:(\d+)-)?(\d+):)?(\d+):(\d+)(?:\.\d+)?$")
_ARRAY_TASK = re.compile(r"^(\d+)_(\d+)$")
_ARRAY_PENDING = re.compile(r"^(\d+)_\[([^\]]*)\]$")
_MIG_PROFILE = re.compile(r"(\d+g\.\d+gb(?:\+me)?)$")
_INFINITE_U32 = 0xFFFFFFFE  # Slurm's INFINITE and NO_VAL for 32-bit limits


class _FieldError(ValueError):
    """One field of a record is unusable: the record is rejected naming that field."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


# --- small value parsers ------------------------------------------------------------------


def parse_duration_seconds(value: str) -> int | None:
    """`[[days-]hh:]mm:ss[.frac]` to whole seconds; None for UNLIMITED/Partition_Limit/empty.

    Raises ValueError for anything else.
    """
    text = value.strip()
    if text.lower() in _NO_LIMIT:
        return None
    match = _DURATION.match(text)
    if match is None:
        raise ValueError(f"invalid duration {value!r}")
    days, hours, minutes, seconds = (int(g) if g else 0 for g in match.groups())
    return ((days * 24 + hours) * 60 + minutes) * 60 + seconds


def parse_tres(text: str) -> list[tuple[str, str]]:
    """A TRES list `billing=1,cpu=1,gres/gpu:h100=2,gres/gpu=2` as (key, value) pairs, in order."""
    pairs = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"malformed TRES entry {item!r}")
        pairs.append((key.strip(), value.strip()))
    return pairs


@dataclasses.dataclass(frozen=True)
class GpuTres:
    """What a TRES list says about GPUs: count, first typed type and its MIG profile."""

    count: int
    gpu_type: str | None
    mig_profile: str | None


def gpu_tres(pairs: Iterable[tuple[str, str]]) -> GpuTres:
    """Apply the GPU-count rule to TRES pairs.

    The untyped `gres/gpu=N` wins when present; otherwise the typed `gres/gpu:TYPE=N` entries
    are summed (Slurm lists both for a typed allocation: summing everything double-counts).
    Raises ValueError for a GPU entry whose count is not a non-negative integer.
    """
    untyped: int | None = None
    typed_total = 0
    first_type: str | None = None
    for key, value in pairs:
        if key != "gres/gpu" and not key.startswith("gres/gpu:"):
            continue
        if not _is_uint(value):
            raise ValueError(f"invalid GPU count {key}={value!r}")
        if key == "gres/gpu":
            untyped = int(value)
        else:
            typed_total += int(value)
            first_type = first_type or key.removeprefix("gres/gpu:")
    count = untyped if untyped is not None else typed_total
    return GpuTres(count=count, gpu_type=first_type, mig_profile=mig_profile(first_type))


def tres_gpu_count(text: str) -> int:
    """GPUs (or MIG instances) in a TRES string; see `gpu_tres` for the rule. 0 when none."""
    return gpu_tres(parse_tres(text)).count


def mig_profile(gpu_type: str | None) -> str | None:
    """The MIG profile a gres type names: `a100_3g.20gb` -> `3g.20gb`; None for a whole GPU."""
    if not gpu_type:
        return None
    match = _MIG_PROFILE.search(gpu_type)
    return match.group(1) if match else None


def expand_array_spec(spec: str) -> list[str]:
    """Array task ids of a spec like `9-11,20`, `1-100%4` (throttle ignored) or `1-7:2`."""
    body = spec.split("%", 1)[0]
    tasks: list[str] = []
    for part in body.split(","):
        match = re.fullmatch(r"(\d+)(?:-(\d+)(?::(\d+))?)?", part.strip())
        if match is None:
            raise ValueError(f"invalid array task list {spec!r}")
        first = int(match.group(1))
        last = int(match.group(2) or first)
        step = int(match.group(3) or 1)
        if last < first or step < 1 or len(tasks) + (last - first) // step >= MAX_ARRAY_TASKS:
            raise ValueError(f"invalid or too large array task list {spec!r}")
        tasks.extend(str(t) for t in range(first, last + 1, step))
    return tasks


def expand_hostlist(expr: str) -> list[str]:
    """Expand a Slurm hostlist: `gpu[01-04]`, `d09n04s[01-02],d13n[03,05,07-08,16]`, `a,b`.

    Zero padding follows the range's first bound; several bracket groups in one name are
    expanded as a product. `None assigned` and empty give []. Raises ValueError when malformed.
    """
    text = expr.strip()
    if not text or text.lower() == "none assigned":
        return []
    hosts: list[str] = []
    for name in _split_top_level(text):
        pieces = re.split(r"(\[[^\[\]]*\])", name)
        choices: list[list[str]] = []
        for piece in pieces:
            if piece.startswith("["):
                choices.append(_expand_ranges(piece[1:-1], expr))
            elif "[" in piece or "]" in piece:
                raise ValueError(f"invalid hostlist {expr!r}")
            else:
                choices.append([piece])
        hosts.extend("".join(combo) for combo in itertools.product(*choices))
    return hosts


def _split_top_level(text: str) -> list[str]:
    names, depth, current = [], 0, []
    for char in text:
        depth += {"[": 1, "]": -1}.get(char, 0)
        if depth < 0 or depth > 1:
            raise ValueError(f"invalid hostlist {text!r}")
        if char == "," and depth == 0:
            names.append("".join(current))
            current = []
        else:
            current.append(char)
    names.append("".join(current))
    if depth != 0 or any(not n for n in names):
        raise ValueError(f"invalid hostlist {text!r}")
    return names


def _expand_ranges(body: str, expr: str) -> list[str]:
    values = []
    for part in body.split(","):
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", part.strip())
        if match is None or (match.group(2) and int(match.group(2)) < int(match.group(1))):
            raise ValueError(f"invalid hostlist {expr!r}")
        low, high = match.group(1), match.group(2) or match.group(1)
        values.extend(str(n).zfill(len(low)) for n in range(int(low), int(high) + 1))
    return values


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
        except _FieldError as err:
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
        raise _FieldError("line", FIXED_WIDTH_REASON)
    if layout.trailing_pipe and line.endswith("|"):
        line = line[:-1]
    elif not layout.from_header and line.endswith("|") and line.count("|") >= expected:
        line = line[:-1]  # --parsable without a header
    # JobName last (as in XDMoD's list) may itself contain `|`.
    maxsplit = expected - 1 if layout.columns[-1] == "jobname" else -1
    fields = line.split("|", maxsplit)
    if len(fields) != expected:
        raise _FieldError("line", f"expected {expected} fields, got {len(fields)}")
    values = {name: value.strip() for name, value in zip(layout.columns, fields, strict=True)}
    values.pop("", None)
    if "jobid" not in values:
        raise _FieldError("JobID", "no JobID column in the sacct header")
    return values


def _text_rows(
    values: Mapping[str, str], *, cluster: str | None, timezone: str, line: int
) -> list[SlurmJob]:
    """The SlurmJob rows of one parsed line (several for a pending array record)."""
    job_id, step_id = _split_job_id(values["jobid"])
    state, state_detail = _split_state(values.get("state", ""))
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
        node_list=_node_list(values.get("nodelist", "")),
        node_names=_node_names(_node_list(values.get("nodelist", "")), "NodeList"),
        alloc_tres=values.get("alloctres") or None,
        req_tres=values.get("reqtres") or None,
        alloc_gpu_count=alloc.count,
        req_gpu_count=req.count,
        gpu_type=alloc.gpu_type or req.gpu_type,
        mig_profile=alloc.mig_profile or req.mig_profile,
        source_line=line,
    )
    return _with_array_ids(row)


def _split_job_id(value: str) -> tuple[str, str | None]:
    """`16_0.batch` -> ("16_0", "batch"); `11` -> ("11", None)."""
    if not value:
        raise _FieldError("JobID", "empty JobID")
    job_id, dot, step_id = value.partition(".")
    if not job_id or (dot and not step_id):
        raise _FieldError("JobID", f"invalid JobID {value!r}")
    return job_id, step_id if dot else None


def _with_array_ids(row: SlurmJob) -> list[SlurmJob]:
    """Set the array ids of `6_0`; expand a pending array record `4103947_[9-11,20]`."""
    task = _ARRAY_TASK.match(row.job_id)
    if task:
        return [dataclasses.replace(row, array_job_id=task[1], array_task_id=task[2])]
    pending = _ARRAY_PENDING.match(row.job_id)
    if pending is None:
        if "[" in row.job_id or "]" in row.job_id:
            raise _FieldError("JobID", f"invalid array JobID {row.job_id!r}")
        return [row]
    if row.step_id is not None:
        return [dataclasses.replace(row, array_job_id=pending[1])]
    try:
        tasks = expand_array_spec(pending[2])
    except ValueError as err:
        raise _FieldError("JobID", str(err)) from None
    return [_array_task(row, pending[1], task) for task in tasks]


def _array_task(row: SlurmJob, array_job_id: str, task_id: str) -> SlurmJob:
    return dataclasses.replace(
        row, job_id=f"{array_job_id}_{task_id}", array_job_id=array_job_id, array_task_id=task_id
    )


def _split_state(value: str) -> tuple[str | None, str | None]:
    """`CANCELLED by 0` -> ("CANCELLED", "by 0"); fixed-width `CANCELLED+` -> "CANCELLED"."""
    word, _, rest = value.strip().partition(" ")
    word = word.rstrip("+")
    return word or None, rest.strip() or None


def _exit_code(value: str) -> tuple[int | None, int | None]:
    if not value:
        return None, None
    code, sep, signal = value.partition(":")
    if not (_is_uint(code) and (not sep or _is_uint(signal))):
        raise _FieldError("ExitCode", f"invalid exit code {value!r} (expected code:signal)")
    return int(code), int(signal) if sep else None


def _time_column(values: Mapping[str, str], name: str, timezone: str) -> dt.datetime | None:
    value = values.get(name, "")
    if value.lower() in _NO_TIME:
        return None
    try:
        return parse_timestamp(value, timezone)
    except ValueError:
        raise _FieldError(_DISPLAY[name], f"invalid timestamp {value!r}") from None


def _duration_column(values: Mapping[str, str], name: str) -> int | None:
    try:
        return parse_duration_seconds(values.get(name, ""))
    except ValueError as err:
        raise _FieldError(_DISPLAY[name], str(err)) from None


def _int_column(values: Mapping[str, str], name: str) -> int | None:
    value = values.get(name, "")
    if not value:
        return None
    if not _is_uint(value):
        raise _FieldError(_DISPLAY[name], f"invalid integer {value!r}")
    return int(value)


def _tres_column(values: Mapping[str, str], name: str) -> GpuTres:
    try:
        return gpu_tres(parse_tres(values.get(name, "")))
    except ValueError as err:
        raise _FieldError(_DISPLAY[name], str(err)) from None


def _node_list(value: str) -> str | None:
    return None if value.lower() in ("", "none assigned") else value


def _node_names(value: str | None, field: str) -> str | None:
    """The expanded hostlist, comma-separated; a malformed hostlist rejects the record."""
    if value is None:
        return None
    try:
        return ",".join(expand_hostlist(value))
    except ValueError as err:
        raise _FieldError(field, f"invalid hostlist {value!r}: {err}") from None


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
        _land_json_job(result, job, index + 1, cluster)
    return result


def _land_json_job(result: ParseResult, job: object, line: int, cluster: str | None) -> None:
    steps = job.get("steps") if isinstance(job, dict) else None
    steps = steps if isinstance(steps, list) else []
    result.records_read += 1 + len(steps)
    raw = json.dumps(job)[:2000]
    try:
        if not isinstance(job, dict):
            raise _FieldError("job", "job is not a JSON object")
        rows = _json_job_rows(job, cluster, line)
    except _FieldError as err:
        result.reject(line, err.field, err.reason, raw)
        for step in steps:
            reason = f"parent job rejected: {err.reason}"
            result.reject(line, err.field, reason, json.dumps(step)[:2000])
        return
    for row in rows:
        result.add(JOBS_TABLE, row)
    parent = rows[0]
    for step in steps:
        try:
            result.add(STEPS_TABLE, _json_step_row(step, parent))
        except _FieldError as err:
            result.reject(line, err.field, err.reason, json.dumps(step)[:2000])


def _json_job_rows(job: Mapping[str, Any], cluster: str | None, line: int) -> list[SlurmJob]:
    raw_id = _number(job.get("job_id"), "job_id")
    if raw_id is None:
        raise _FieldError("job_id", "job has no job_id")
    array = job.get("array") if isinstance(job.get("array"), dict) else {}
    array_job_id = _number(array.get("job_id"), "array.job_id") or None
    task_id = _number(array.get("task_id"), "array.task_id")
    job_id = f"{array_job_id}_{task_id}" if array_job_id and task_id is not None else str(raw_id)
    times = _json_times(job.get("time"))
    state, state_detail = _json_state(job.get("state"))
    exit_code, exit_signal = _json_exit(job.get("exit_code") or job.get("derived_exit_code"))
    tres = job.get("tres") if isinstance(job.get("tres"), dict) else {}
    alloc_pairs = _json_tres_pairs(tres.get("allocated"), "tres.allocated")
    req_pairs = _json_tres_pairs(tres.get("requested"), "tres.requested")
    alloc, req = _json_gpu(alloc_pairs, "tres.allocated"), _json_gpu(req_pairs, "tres.requested")
    alloc_counts = dict(alloc_pairs)
    required = job.get("required") if isinstance(job.get("required"), dict) else {}
    row = SlurmJob(
        cluster=_text(job.get("cluster")) or cluster or "default",
        job_id=job_id,
        job_id_raw=str(raw_id),
        array_job_id=str(array_job_id) if array_job_id and task_id is not None else None,
        array_task_id=str(task_id) if array_job_id and task_id is not None else None,
        step_id=None,
        job_name=_text(job.get("name")),
        user_name=_text(job.get("user")),
        uid=None,
        group_name=_text(job.get("group")),
        gid=None,
        account=_text(job.get("account")),
        partition=_text(job.get("partition")),
        qos=_text(job.get("qos")),
        state=state,
        state_detail=state_detail,
        exit_code=exit_code,
        exit_signal=exit_signal,
        submit_at=times["submission"],
        eligible_at=times["eligible"],
        start_at=times["start"],
        end_at=times["end"],
        elapsed_seconds=times["elapsed"],
        timelimit_minutes=times["limit"],
        node_count=_count_of(alloc_counts, "node", job.get("allocation_nodes")),
        cpu_count=_count_of(alloc_counts, "cpu", required.get("CPUs")),
        node_list=_node_list(_text(job.get("nodes")) or ""),
        node_names=_node_names(_node_list(_text(job.get("nodes")) or ""), "nodes"),
        alloc_tres=_tres_text(alloc_pairs),
        req_tres=_tres_text(req_pairs),
        alloc_gpu_count=alloc.count,
        req_gpu_count=req.count,
        gpu_type=alloc.gpu_type or req.gpu_type,
        mig_profile=alloc.mig_profile or req.mig_profile,
        source_line=line,
    )
    pending = _text(array.get("task"))
    if array_job_id and task_id is None and pending:
        try:
            tasks = expand_array_spec(pending.strip("[]"))
        except ValueError as err:
            raise _FieldError("array.task", str(err)) from None
        return [_array_task(row, str(array_job_id), task) for task in tasks]
    return [row]


def _json_step_row(step: object, parent: SlurmJob) -> SlurmJob:
    if not isinstance(step, dict):
        raise _FieldError("steps", "step is not a JSON object")
    step_id = _json_step_id(step.get("step"))
    times = _json_times(step.get("time"))
    state, state_detail = _json_state({"current": step.get("state")})
    exit_code, exit_signal = _json_exit(step.get("exit_code"))
    tres = step.get("tres") if isinstance(step.get("tres"), dict) else {}
    alloc_pairs = _json_tres_pairs(tres.get("allocated"), "tres.allocated")
    alloc = _json_gpu(alloc_pairs, "tres.allocated")
    nodes = step.get("nodes")
    node_list = nodes.get("range") if isinstance(nodes, dict) else nodes
    node_count = _number(nodes.get("count"), "nodes.count") if isinstance(nodes, dict) else None
    name = step.get("step", {}).get("name") if isinstance(step.get("step"), dict) else None
    return dataclasses.replace(
        parent,
        job_id_raw=f"{parent.job_id_raw}.{step_id}",
        step_id=step_id,
        job_name=_text(name),
        user_name=None,
        group_name=None,
        partition=None,
        qos=None,
        state=state,
        state_detail=state_detail,
        exit_code=exit_code,
        exit_signal=exit_signal,
        submit_at=None,
        eligible_at=None,
        start_at=times["start"],
        end_at=times["end"],
        elapsed_seconds=times["elapsed"],
        timelimit_minutes=None,
        node_count=_count_of(dict(alloc_pairs), "node", node_count),
        cpu_count=_count_of(dict(alloc_pairs), "cpu", None),
        node_list=_node_list(_text(node_list) or ""),
        node_names=_node_names(_node_list(_text(node_list) or ""), "steps.nodes"),
        alloc_tres=_tres_text(alloc_pairs),
        req_tres=None,
        alloc_gpu_count=alloc.count,
        req_gpu_count=0,
        gpu_type=alloc.gpu_type,
        mig_profile=alloc.mig_profile,
    )


def _json_step_id(step: object) -> str:
    """`{"id": "batch"}` (dbv0.0.37/38, id may be an int), `{"id": "11.batch"}` (v0.0.40+)."""
    if not isinstance(step, dict):
        raise _FieldError("step", "step has no 'step' object")
    value = step.get("id", step.get("step_id"))
    if isinstance(value, dict):  # {"job_id": .., "step_id": ..} shape
        value = value.get("step_id")
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
        raise _FieldError("step.id", f"invalid step id {value!r}")
    text = str(value)
    return text.split(".", 1)[1] if "." in text else text


def _number(value: object, field: str) -> int | None:
    """An int, or data_parser v0.0.40's `{"set", "infinite", "number"}` (None unless set)."""
    if isinstance(value, dict):
        if not value.get("set", True) or value.get("infinite", False):
            return None
        value = value.get("number")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise _FieldError(field, f"invalid number {value!r}")
    return value


def _json_times(time: object) -> dict[str, Any]:
    time = time if isinstance(time, dict) else {}
    out: dict[str, Any] = {}
    for key in ("submission", "eligible", "start", "end"):
        epoch = _number(time.get(key), f"time.{key}")
        out[key] = dt.datetime.fromtimestamp(epoch, dt.UTC).replace(tzinfo=None) if epoch else None
    out["elapsed"] = _number(time.get("elapsed"), "time.elapsed")
    limit = _number(time.get("limit"), "time.limit")
    out["limit"] = None if limit is None or limit >= _INFINITE_U32 else limit
    return out


def _json_state(state: object) -> tuple[str | None, str | None]:
    current = state.get("current") if isinstance(state, dict) else state
    if isinstance(current, list):
        current = " ".join(str(c) for c in current)
    return _split_state(current) if isinstance(current, str) else (None, None)


def _json_exit(exit_obj: object) -> tuple[int | None, int | None]:
    """(return_code, signal); a missing half is 0 when the other is known, as sacct prints it."""
    if not isinstance(exit_obj, dict):
        return None, None
    code = _number(exit_obj.get("return_code"), "exit_code")
    signal = exit_obj.get("signal")
    if isinstance(signal, dict):
        signal = signal.get("signal_id", signal.get("id"))
    signal = _number(signal, "exit_code")
    if code is None and signal is None:
        return None, None
    return code or 0, signal or 0


def _json_tres_pairs(entries: object, field: str) -> list[tuple[str, str]]:
    """`[{"type": "gres", "name": "gpu:h100", "count": 2}]` -> [("gres/gpu:h100", "2")]."""
    if not isinstance(entries, list):
        return []
    pairs = []
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("count") is None:
            continue
        key = str(entry.get("type"))
        if entry.get("name"):
            key = f"{key}/{entry['name']}"
        count = entry["count"]
        if isinstance(count, bool) or not isinstance(count, int):
            raise _FieldError(field, f"invalid count {key}={count!r}")
        pairs.append((key, str(count)))
    return pairs


def _json_gpu(pairs: list[tuple[str, str]], field: str) -> GpuTres:
    try:
        return gpu_tres(pairs)
    except ValueError as err:
        raise _FieldError(field, str(err)) from None


def _tres_text(pairs: list[tuple[str, str]]) -> str | None:
    """Render JSON TRES like sacct's text (mem in MB gets its `M`)."""
    text = ",".join(f"{k}={v}M" if k == "mem" else f"{k}={v}" for k, v in pairs)
    return text or None


def _count_of(counts: Mapping[str, str], key: str, fallback: object) -> int | None:
    if key in counts:
        return int(counts[key])
    return _number(fallback, key) if fallback is not None else None


def _is_uint(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
