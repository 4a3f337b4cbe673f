"""Steps whose job row is missing (pure but for the writer and lookup handed in): sacct lists
a step without its job when the job row fell outside the query (`--starttime` after the
job's start, a `-j` of the step) or was lost. A step is billed through its job, so an orphan
step would land as rows no model reads: it is quarantined with its reason instead, counted,
and the ingest warns.

A parse result held in memory (`sacct --json`) is screened whole (`quarantine_orphan_steps`);
text read chunk by chunk goes through `StepsAfterJobs`, which writes a step once its job is
known and decides on the rest at the end, when every job of the batch is."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable

import pyarrow as pa
import pyarrow.compute as pc

from extractors.landing import BatchWriter
from extractors.records import ParseResult, Rejected
from extractors.slurm.records import JOBS_TABLE, STEPS_TABLE

Keys = set[tuple[str, str]]


def step_job_keys(result: ParseResult) -> Keys:
    """(cluster, job_id) of every step of the batch whose job row is not in it."""
    jobs = {(row.cluster, row.job_id) for row in result.tables.get(JOBS_TABLE, [])}  # type: ignore[attr-defined]
    steps = result.tables.get(STEPS_TABLE, [])
    return {(row.cluster, row.job_id) for row in steps} - jobs  # type: ignore[attr-defined]


def quarantine_orphan_steps(result: ParseResult, landed: Iterable[tuple[str, str]]) -> None:
    """Move every step whose job is neither in the batch nor `landed` (before) to the
    rejected records, and warn. In quarantine it is counted and kept with its reason (and
    `gpuledger quarantine release` lands it when its job turns up)."""
    missing = step_job_keys(result) - set(landed)
    if not missing:
        return
    kept, orphans = [], []
    for row in result.tables[STEPS_TABLE]:
        key = (row.cluster, row.job_id)  # type: ignore[attr-defined]
        (orphans if key in missing else kept).append(row)
    result.tables[STEPS_TABLE] = kept
    rows = [dataclasses.asdict(row) for row in orphans]  # type: ignore[call-overload]
    result.rejected.extend(orphan_rejections(rows))
    result.warn(orphan_warning(rows))


def orphan_rejections(rows: list[dict]) -> list[Rejected]:
    """The quarantine records of orphan steps (SlurmJob rows as dicts)."""
    rejected = []
    for row in rows:
        step = f"{row['job_id']}.{row['step_id']}"
        reason = (
            f"slurm_steps: orphan step {step}: job {row['job_id']} of cluster {row['cluster']} "
            "is not in this output nor landed before (a step is billed through its job)"
        )
        rejected.append(Rejected(row["source_line"], "JobID", reason, json.dumps(row, default=str)))
    return rejected


def orphan_warning(rows: list[dict]) -> str:
    names = ", ".join(f"{r['job_id']}.{r['step_id']} (line {r['source_line']})" for r in rows[:10])
    return (
        f"{len(rows)} step(s) without their job quarantined: {names}; "
        "ingest the job's sacct output, then release them from quarantine"
    )


class StepsAfterJobs:
    """Writes a batch's job and step rows chunk by chunk: a step whose job is in its chunk or
    the one before (sacct lists a job's steps right after it) is written at once, any other
    is held until `finish`, which writes those whose job the batch or a landed batch holds
    (`landed`: those of some (cluster, job_id) keys) and quarantines the rest."""

    def __init__(self, batch: BatchWriter, landed: Callable[[Keys], Keys]) -> None:
        self.batch, self.landed = batch, landed
        self.keys: list[pa.Array] = []  # the job keys of every chunk so far
        self.held: list[pa.Table] = []

    def write(self, jobs: pa.Table, steps: pa.Table) -> None:
        self._write(JOBS_TABLE, jobs)
        self.keys.append(job_keys(jobs))
        if not steps.num_rows:
            return
        known = pc.is_in(job_keys(steps), value_set=pa.concat_arrays(self.keys[-2:]))
        self._write(STEPS_TABLE, steps.filter(known))
        held = steps.filter(pc.invert(known))
        if held.num_rows:
            self.held.append(held)

    def _write(self, table: str, rows: pa.Table) -> None:
        if rows.num_rows:
            self.batch.write(table, rows)

    def finish(self) -> list[str]:
        """Write or quarantine the steps held; the warning about the orphans, if any."""
        if not self.held:
            return []
        held = pa.concat_tables(self.held)
        keys = job_keys(held)
        in_batch = pc.is_in(keys, value_set=pa.concat_arrays(self.keys))
        missing = held.filter(pc.invert(in_batch)).select(["cluster", "job_id"]).to_pylist()
        landed = self.landed({(r["cluster"], r["job_id"]) for r in missing})
        found = key_array(landed)
        known = pc.or_(in_batch, pc.is_in(keys, value_set=found))
        self._write(STEPS_TABLE, held.filter(known))
        orphans = held.filter(pc.invert(known)).to_pylist()
        if not orphans:
            return []
        self.batch.reject(orphan_rejections(orphans))
        return [orphan_warning(orphans)]


def job_keys(rows: pa.Table) -> pa.Array:
    """(cluster, job_id) of each row as one string (neither holds a newline)."""
    return pc.binary_join_element_wise(rows["cluster"], rows["job_id"], "\n").combine_chunks()


def key_array(keys: Keys) -> pa.Array:
    """(cluster, job_id) keys as `job_keys` writes them, in order."""
    return pa.array(sorted(f"{cluster}\n{job_id}" for cluster, job_id in keys), pa.string())
