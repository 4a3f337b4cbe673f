"""Steps whose job row is missing (pure): sacct lists a step without its job when the job
row fell outside the query (`--starttime` after the job's start, a `-j` of the step) or was
lost. A step is billed through its job, so an orphan step would land as rows no model
reads: it is quarantined with its reason instead, counted, and the ingest warns."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable

from extractors.records import ParseResult
from extractors.slurm.records import JOBS_TABLE, STEPS_TABLE


def step_job_keys(result: ParseResult) -> set[tuple[str, str]]:
    """(cluster, job_id) of every step of the batch whose job row is not in it."""
    jobs = {(row.cluster, row.job_id) for row in result.tables.get(JOBS_TABLE, [])}  # type: ignore[attr-defined]
    steps = result.tables.get(STEPS_TABLE, [])
    return {(row.cluster, row.job_id) for row in steps} - jobs  # type: ignore[attr-defined]


def quarantine_orphan_steps(result: ParseResult, landed: Iterable[tuple[str, str]]) -> None:
    """Move every step whose job is neither in the batch nor `landed` (before) to the
    rejected records, and warn: a step is billed through its job, so an orphan step would
    land as rows no model reads. In quarantine it is counted and kept with its reason (and
    `gpuledger quarantine release` lands it when its job turns up)."""
    missing = step_job_keys(result) - set(landed)
    if not missing:
        return
    kept, orphans = [], []
    for row in result.tables[STEPS_TABLE]:
        key = (row.cluster, row.job_id)  # type: ignore[attr-defined]
        (orphans if key in missing else kept).append(row)
    result.tables[STEPS_TABLE] = kept
    for row in orphans:
        step = f"{row.job_id}.{row.step_id}"
        reason = (
            f"slurm_steps: orphan step {step}: job {row.job_id} of cluster {row.cluster} is "
            "not in this output nor landed before (a step is billed through its job)"
        )
        result.reject(
            row.source_line, "JobID", reason, json.dumps(dataclasses.asdict(row), default=str)
        )
    names = ", ".join(f"{r.job_id}.{r.step_id} (line {r.source_line})" for r in orphans[:10])
    result.warn(
        f"{len(orphans)} step(s) without their job quarantined: {names}; "
        "ingest the job's sacct output, then release them from quarantine"
    )
