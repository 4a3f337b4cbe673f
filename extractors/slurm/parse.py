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

import json
from collections.abc import Callable

from extractors.records import ParseResult
from extractors.slurm.record import EXTRACTED_AT_BASIS, with_run_end
from extractors.slurm.records import JOBS_TABLE, STEPS_TABLE, SlurmJob
from extractors.slurm.sacct_json import land_job
from extractors.slurm.stream import SacctStream
from extractors.slurm.text import FIXED_WIDTH_REASON, XDMOD_FIELDS, XDMOD_LEGACY_FIELDS, field_at

__all__ = [
    "FIXED_WIDTH_REASON",
    "XDMOD_FIELDS",
    "XDMOD_LEGACY_FIELDS",
    "parse_sacct_json",
    "parse_sacct_text",
]

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
    with an offset (`+0100`, `+01:00`, `Z`) are converted to UTC. The text is read as one
    chunk of `extractors.slurm.stream.SacctStream`, which reads a file chunk by chunk.
    """
    stream = SacctStream(cluster=cluster, timezone=timezone, delimiter=delimiter)
    chunk = stream.feed(text, final=True)
    result = ParseResult(rejected=chunk.rejected, records_read=chunk.records_read)
    for table, rows in ((JOBS_TABLE, chunk.jobs), (STEPS_TABLE, chunk.steps)):
        if rows.num_rows:
            result.tables[table] = [SlurmJob(**row) for row in rows.to_pylist()]
    result.warnings.extend(stream.warnings)
    result.extracted_at, result.extracted_at_basis = stream.extracted_at, stream.extracted_at_basis
    return result


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
