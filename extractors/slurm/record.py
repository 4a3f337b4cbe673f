"""One `sacct --parsable2` record's values into SlurmJob rows (pure): the per-record reading
of every field, the rule the column-wise reader (extractors.slurm.columns) follows for the
bulk of the records and falls back on for the rest. A value that cannot be read raises
FieldError naming its sacct field.

A job still running (End `Unknown`) ends provisionally at Start + Elapsed, the instant sacct
saw it; the latest such instant is the output's extraction instant (basis `sacct_elapsed`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Mapping

from extractors.slurm.records import SlurmJob
from extractors.slurm.text import DISPLAY
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

EXTRACTED_AT_BASIS = "sacct_elapsed"
NO_TIME = frozenset({"", "unknown", "none"})
_ARRAY_TASK = re.compile(r"^(\d+)_(\d+)$")
_ARRAY_PENDING = re.compile(r"^(\d+)_\[([^\]]*)\]$")
_HET_COMPONENT = re.compile(r"^(\d+)\+(\d+)$")


def gpu_source_warning(source: str, count: int, lines: list[int]) -> str:
    """The ingest's warning about `count` records whose GPUs come from `source` (the first
    ten of their lines in `lines`)."""
    shown = ", ".join(map(str, lines[:10])) + (", ..." if count > 10 else "")
    if source == "ReqTRES":
        return (
            f"{count} started job(s) request GPUs but the output has no AllocTRES column "
            f"(lines {shown}): they count 0 allocated GPUs; add AllocTRES to sacct --format"
        )
    return (
        f"{count} job(s) count their GPUs from the legacy {source} column only "
        f"(lines {shown}); AllocTRES, where sacct has it, says what was allocated"
    )


def record_rows(
    values: Mapping[str, str], *, cluster: str | None, timezone: str, line: int
) -> tuple[list[SlurmJob], str | None]:
    """The SlurmJob rows of one record (several for a pending array record), and the column
    its GPU count comes from when that is not AllocTRES (for the ingest's warning)."""
    job_id, step_id = _split_job_id(values["jobid"])
    state, state_detail = split_state(values.get("state", ""))
    code, signal = exit_code(values.get("exitcode", ""))
    alloc, req, source = gpus(values, step_id is None)
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
        exit_code=code,
        exit_signal=signal,
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
    return with_array_ids(with_run_end(row)), source if alloc.count or req.count else None


def gpus(values: Mapping[str, str], is_job: bool) -> tuple[GpuTres, GpuTres, str | None]:
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
    started = values.get("start", "").lower() not in NO_TIME
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


def with_array_ids(row: SlurmJob) -> list[SlurmJob]:
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


def exit_code(value: str) -> tuple[int | None, int | None]:
    if not value:
        return None, None
    code, sep, signal = value.partition(":")
    if not (is_uint(code) and (not sep or is_uint(signal))):
        raise FieldError("ExitCode", f"invalid exit code {value!r} (expected code:signal)")
    return int(code), int(signal) if sep else None


def _time_column(values: Mapping[str, str], name: str, timezone: str) -> dt.datetime | None:
    return time_value(values.get(name, ""), name, timezone)


def time_value(value: str, name: str, timezone: str) -> dt.datetime | None:
    """A time column's value as naive UTC; None for `Unknown`, `None` or empty."""
    if value.lower() in NO_TIME:
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
