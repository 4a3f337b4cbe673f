"""Typed rows of the Slurm accounting source (one per job, array task or job step)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

JOBS_TABLE = "slurm_jobs"
STEPS_TABLE = "slurm_steps"


@dataclass(frozen=True)
class SlurmJob:
    """One row of `sacct` output: a job or array task (step_id None) or a job step.

    Times are UTC, zone-less. `end_at` is the End sacct reported (None while the job runs);
    a job still running ends provisionally at `provisional_end_at`, Start + Elapsed: the
    instant sacct saw it, superseded by a later extraction (`end_basis` says which end the
    row has: `reported`, `elapsed`, or None when it never started).

    `alloc_gpu_count` is the number of GPUs (or MIG instances) the allocation held: the
    untyped `gres/gpu=N` when sacct lists it, else the sum of the typed `gres/gpu:TYPE=N`
    entries (never both); without a GPU in AllocTRES, the legacy AllocGRES (and in XDMoD's
    25-field layout, which has no allocation column, a started job's ReqGRES).
    `req_gpu_count` is the same for ReqTRES (else ReqGRES). A heterogeneous job's
    components (`176+0`, `176+1`) are rows of their own, `het_job_id` naming the job.
    """

    cluster: str
    job_id: str  # display id: "1234", "6_0" (array task), "4103947_9" (expanded)
    job_id_raw: str | None
    array_job_id: str | None
    array_task_id: str | None
    step_id: str | None  # None for the job itself; "batch", "extern", "0", ...
    job_name: str | None
    user_name: str | None
    uid: str | None
    group_name: str | None
    gid: str | None
    account: str | None
    partition: str | None
    qos: str | None
    state: str | None  # first word of State: "CANCELLED by 0" -> "CANCELLED"
    state_detail: str | None  # the rest: "by 0"
    exit_code: int | None
    exit_signal: int | None
    submit_at: dt.datetime | None
    eligible_at: dt.datetime | None
    start_at: dt.datetime | None
    end_at: dt.datetime | None
    elapsed_seconds: int | None
    timelimit_minutes: int | None  # None when UNLIMITED or absent
    node_count: int | None
    cpu_count: int | None
    node_list: str | None  # hostlist expression as sacct prints it; None for "None assigned"
    node_names: str | None  # the hostlist expanded, comma-separated: "gpu01,gpu02"
    alloc_tres: str | None
    req_tres: str | None
    alloc_gpu_count: int
    req_gpu_count: int
    gpu_type: str | None  # first typed gres type: "h100", "a100_3g.20gb"
    mig_profile: str | None  # "3g.20gb" when the gres type names a MIG profile
    source_line: int
    het_job_id: str | None = None  # a heterogeneous job's id: "176" of component "176+1"
    het_job_offset: int | None = None  # the component: 1 of "176+1"
    provisional_end_at: dt.datetime | None = None  # still running: Start + Elapsed
    end_basis: str | None = None  # reported | elapsed | None (never started)


RAW_TABLES: dict[str, type] = {JOBS_TABLE: SlurmJob, STEPS_TABLE: SlurmJob}
# a step is quarantined with its job: table -> (parent table, key columns), read by the landing
QUARANTINED_WITH: dict[str, tuple[str, tuple[str, ...]]] = {
    STEPS_TABLE: (JOBS_TABLE, ("cluster", "job_id"))
}
