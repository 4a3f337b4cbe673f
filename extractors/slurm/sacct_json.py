"""One job of `sacct --json` as SlurmJob rows (pure): openapi dbv0.0.37/38 and data_parser
v0.0.40+ (see `extractors.slurm.parse.parse_sacct_json`)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Mapping
from typing import Any

from extractors.records import ParseResult
from extractors.slurm.records import JOBS_TABLE, STEPS_TABLE, SlurmJob
from extractors.slurm.values import (
    FieldError,
    GpuTres,
    array_task,
    expand_array_spec,
    gpu_fields,
    gpu_tres,
    node_fields,
    split_state,
)

_INFINITE_U32 = 0xFFFFFFFE  # Slurm's INFINITE and NO_VAL for 32-bit limits


def land_job(result: ParseResult, job: object, line: int, cluster: str | None) -> None:
    """The rows of one entry of `jobs` and its steps; a job rejected takes its steps with it."""
    steps = job.get("steps") if isinstance(job, dict) else None
    steps = steps if isinstance(steps, list) else []
    result.records_read += 1 + len(steps)
    raw = json.dumps(job)[:2000]
    try:
        if not isinstance(job, dict):
            raise FieldError("job", "job is not a JSON object")
        rows = _job_rows(job, cluster, line)
    except FieldError as err:
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
            result.add(STEPS_TABLE, _step_row(step, parent))
        except FieldError as err:
            result.reject(line, err.field, err.reason, json.dumps(step)[:2000])


def _job_rows(job: Mapping[str, Any], cluster: str | None, line: int) -> list[SlurmJob]:
    raw_id = _number(job.get("job_id"), "job_id")
    if raw_id is None:
        raise FieldError("job_id", "job has no job_id")
    array = job.get("array") if isinstance(job.get("array"), dict) else {}
    array_job_id = _number(array.get("job_id"), "array.job_id") or None
    task_id = _number(array.get("task_id"), "array.task_id")
    job_id = f"{array_job_id}_{task_id}" if array_job_id and task_id is not None else str(raw_id)
    het = job.get("het") if isinstance(job.get("het"), dict) else {}
    het_job_id = _number(het.get("job_id"), "het.job_id")
    het_offset = _number(het.get("job_offset"), "het.job_offset")
    if het_job_id and het_offset is not None:
        job_id = f"{het_job_id}+{het_offset}"
    job_cluster = _text(job.get("cluster")) or cluster
    if not job_cluster:
        raise FieldError("cluster", "the job names no cluster: give --cluster NAME")
    times = _times(job.get("time"))
    run = _run(job.get("state"), job.get("exit_code") or job.get("derived_exit_code"), times)
    tres = job.get("tres") if isinstance(job.get("tres"), dict) else {}
    alloc_pairs = _tres_pairs(tres.get("allocated"), "tres.allocated")
    req_pairs = _tres_pairs(tres.get("requested"), "tres.requested")
    alloc, req = _gpu(alloc_pairs, "tres.allocated"), _gpu(req_pairs, "tres.requested")
    alloc_counts = dict(alloc_pairs)
    required = job.get("required") if isinstance(job.get("required"), dict) else {}
    row = SlurmJob(
        cluster=job_cluster,
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
        submit_at=times["submission"],
        eligible_at=times["eligible"],
        timelimit_minutes=times["limit"],
        node_count=_count_of(alloc_counts, "node", job.get("allocation_nodes")),
        cpu_count=_count_of(alloc_counts, "cpu", required.get("CPUs")),
        alloc_tres=_tres_text(alloc_pairs),
        req_tres=_tres_text(req_pairs),
        source_line=line,
        **run,
        **node_fields(_text(job.get("nodes")) or "", "nodes"),
        **gpu_fields(alloc, req),
    )
    pending = _text(array.get("task"))
    if array_job_id and task_id is None and pending:
        try:
            tasks = expand_array_spec(pending.strip("[]"))
        except ValueError as err:
            raise FieldError("array.task", str(err)) from None
        return [array_task(row, str(array_job_id), task) for task in tasks]
    return [row]


def _step_row(step: object, parent: SlurmJob) -> SlurmJob:
    if not isinstance(step, dict):
        raise FieldError("steps", "step is not a JSON object")
    step_id = _step_id(step.get("step"))
    times = _times(step.get("time"))
    run = _run({"current": step.get("state")}, step.get("exit_code"), times)
    tres = step.get("tres") if isinstance(step.get("tres"), dict) else {}
    alloc_pairs = _tres_pairs(tres.get("allocated"), "tres.allocated")
    alloc = _gpu(alloc_pairs, "tres.allocated")
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
        submit_at=None,
        eligible_at=None,
        timelimit_minutes=None,
        node_count=_count_of(dict(alloc_pairs), "node", node_count),
        cpu_count=_count_of(dict(alloc_pairs), "cpu", None),
        alloc_tres=_tres_text(alloc_pairs),
        req_tres=None,
        **run,
        **node_fields(_text(node_list) or "", "steps.nodes"),
        **gpu_fields(alloc, GpuTres(0, None, None)),
    )


def _run(state: object, exit_obj: object, times: Mapping[str, Any]) -> dict[str, Any]:
    """How a job or step ran: state, exit and start, end and elapsed time."""
    state_word, state_detail = _state(state)
    exit_code, exit_signal = _exit(exit_obj)
    return {
        "state": state_word,
        "state_detail": state_detail,
        "exit_code": exit_code,
        "exit_signal": exit_signal,
        "start_at": times["start"],
        "end_at": times["end"],
        "elapsed_seconds": times["elapsed"],
    }


def _step_id(step: object) -> str:
    """`{"id": "batch"}` (dbv0.0.37/38, id may be an int), `{"id": "11.batch"}` (v0.0.40+)."""
    if not isinstance(step, dict):
        raise FieldError("step", "step has no 'step' object")
    value = step.get("id", step.get("step_id"))
    if isinstance(value, dict):  # {"job_id": .., "step_id": ..} shape
        value = value.get("step_id")
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
        raise FieldError("step.id", f"invalid step id {value!r}")
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
        raise FieldError(field, f"invalid number {value!r}")
    return value


def _times(time: object) -> dict[str, Any]:
    time = time if isinstance(time, dict) else {}
    out: dict[str, Any] = {}
    for key in ("submission", "eligible", "start", "end"):
        epoch = _number(time.get(key), f"time.{key}")
        out[key] = dt.datetime.fromtimestamp(epoch, dt.UTC).replace(tzinfo=None) if epoch else None
    out["elapsed"] = _number(time.get("elapsed"), "time.elapsed")
    limit = _number(time.get("limit"), "time.limit")
    out["limit"] = None if limit is None or limit >= _INFINITE_U32 else limit
    return out


def _state(state: object) -> tuple[str | None, str | None]:
    current = state.get("current") if isinstance(state, dict) else state
    if isinstance(current, list):
        current = " ".join(str(c) for c in current)
    return split_state(current) if isinstance(current, str) else (None, None)


def _exit(exit_obj: object) -> tuple[int | None, int | None]:
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


def _tres_pairs(entries: object, field: str) -> list[tuple[str, str]]:
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
            raise FieldError(field, f"invalid count {key}={count!r}")
        pairs.append((key, str(count)))
    return pairs


def _gpu(pairs: list[tuple[str, str]], field: str) -> GpuTres:
    try:
        return gpu_tres(pairs)
    except ValueError as err:
        raise FieldError(field, str(err)) from None


def _tres_text(pairs: list[tuple[str, str]]) -> str | None:
    """Render JSON TRES like sacct's text (mem in MB gets its `M`)."""
    text = ",".join(f"{k}={v}M" if k == "mem" else f"{k}={v}" for k, v in pairs)
    return text or None


def _count_of(counts: Mapping[str, str], key: str, fallback: object) -> int | None:
    if key in counts:
        return int(counts[key])
    return _number(fallback, key) if fallback is not None else None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
