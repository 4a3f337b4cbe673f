"""The Slurm cluster's accounting: `sacct --parsable2 --noheader` lines in Open XDMoD's 26
fields, a job's row and its .batch, .extern and (some jobs') .0 step rows, one file per ISO
week of the jobs' ends, as sacct showed them at the extraction."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Sequence
from dataclasses import dataclass

from extractors.slurm.parse import XDMOD_FIELDS
from gpuledger.demo.common import DAY, HOUR
from gpuledger.demo.constants import CLUSTER, Window
from gpuledger.demo.slurm.jobs import Job
from gpuledger.demo.slurm.scheduler import Placement

PARTITIONS = {"h100": "gpu-h100", "a100": "gpu-a100"}

STATE_EXIT = {
    "COMPLETED": "0:0",
    "FAILED": "1:0",
    "CANCELLED": "0:0",
    "TIMEOUT": "0:0",
    "OUT_OF_MEMORY": "0:125",
    "NODE_FAIL": "0:0",
    "PREEMPTED": "0:0",
    "RUNNING": "0:0",
}
# Job state -> (state, exit code) of its batch and srun steps, and of its extern step.
STEP_STATES = {
    "COMPLETED": (("COMPLETED", "0:0"), ("COMPLETED", "0:0")),
    "FAILED": (("FAILED", "1:0"), ("COMPLETED", "0:0")),
    "CANCELLED": (("CANCELLED", "0:15"), ("COMPLETED", "0:0")),
    "TIMEOUT": (("CANCELLED", "0:15"), ("COMPLETED", "0:0")),
    "OUT_OF_MEMORY": (("OUT_OF_MEMORY", "0:125"), ("OUT_OF_MEMORY", "0:125")),
    "NODE_FAIL": (("CANCELLED", "0:9"), ("CANCELLED", "0:9")),
    "PREEMPTED": (("CANCELLED", "0:15"), ("COMPLETED", "0:0")),
    "RUNNING": (("RUNNING", "0:0"), ("RUNNING", "0:0")),
}


def sacct_time(t: dt.datetime | None) -> str:
    return "Unknown" if t is None else t.strftime("%Y-%m-%dT%H:%M:%S")


def slurm_duration(seconds: int) -> str:
    days, rest = divmod(seconds, DAY)
    hours, rest = divmod(rest, HOUR)
    clock = f"{hours:02d}:{rest // 60:02d}:{rest % 60:02d}"
    return f"{days}-{clock}" if days else clock


def hostlist(names: Sequence[str]) -> str:
    """Slurm's compressed host list: `hgx-h100-[03-04]`, `hgx-h100-[01,05]`, `hgx-h100-02`."""
    if len(names) == 1:
        return names[0]
    prefix = names[0].rsplit("-", 1)[0]
    numbers = sorted(int(n.rsplit("-", 1)[1]) for n in names)
    ranges: list[list[int]] = []
    for number in numbers:
        if ranges and number == ranges[-1][1] + 1:
            ranges[-1][1] = number
        else:
            ranges.append([number, number])
    parts = [f"{a:02d}" if a == b else f"{a:02d}-{b:02d}" for a, b in ranges]
    return f"{prefix}-[{','.join(parts)}]"


def tres(job: Job, nodes: int, billing: bool = True, typed: bool = True) -> str:
    """A TRES string for `nodes` of the job's nodes, as sacct lists AllocTRES and ReqTRES."""
    gpus = job.gpus * nodes // job.node_count
    cpus = gpus * job.cpus_per_gpu
    parts = [f"billing={cpus}"] if billing else []
    parts.append(f"cpu={cpus}")
    if typed:
        parts.append(f"gres/gpu:{job.gpu_class}={gpus}")
    parts += [f"gres/gpu={gpus}", f"mem={gpus * job.mem_per_gpu_mb}M", f"node={nodes}"]
    return ",".join(parts)


def sacct_line(values: dict[str, str]) -> str:
    return "|".join(values.get(field, "") for field in XDMOD_FIELDS)


def job_state_text(job: Job, state: str) -> str:
    return f"CANCELLED by {job.cancelled_by}" if state == "CANCELLED" else state


def job_row(job: Job, placement: Placement | None, window: Window) -> dict[str, str]:
    row = {
        "jobid": job.job_id,
        "jobidraw": str(job.raw_id),
        "cluster": CLUSTER,
        "partition": PARTITIONS[job.gpu_class],
        "qos": job.qos,
        "account": job.account,
        "group": job.user.group,
        "gid": str(job.user.gid),
        "user": job.user.name,
        "uid": str(job.user.uid),
        "submit": sacct_time(job.submit),
        "eligible": sacct_time(job.eligible),
        "nnodes": str(job.node_count),
        "ncpus": str(job.gpus * job.cpus_per_gpu),
        "reqcpus": str(job.gpus * job.cpus_per_gpu),
        "reqmem": f"{job.mem_per_node_mb}M",
        "reqtres": tres(job, job.node_count, typed=False),
        "timelimit": slurm_duration(job.timelimit_s),
        "jobname": job.job_name,
    }
    if placement is None:
        row |= {"start": "Unknown", "end": "Unknown", "elapsed": "00:00:00"}
        row |= {"exitcode": "0:0", "state": "PENDING", "nodelist": "None assigned"}
        return row
    end, state = run_end(job, placement, window)
    row |= {
        "start": sacct_time(placement.start),
        "end": sacct_time(end),
        "elapsed": slurm_duration(elapsed(placement.start, end, window)),
        "exitcode": STATE_EXIT[state],
        "state": job_state_text(job, state),
        "alloctres": tres(job, job.node_count),
        "nodelist": hostlist(placement.nodes),
    }
    return row


def run_end(job: Job, placement: Placement, window: Window) -> tuple[dt.datetime | None, str]:
    """The job's end and state as sacct saw them at extraction (None, RUNNING if still on)."""
    end = placement.start + dt.timedelta(seconds=job.runtime_s)
    return (None, "RUNNING") if end > window.extracted_at else (end, job.state)


def elapsed(start: dt.datetime, end: dt.datetime | None, window: Window) -> int:
    return int(((end or window.extracted_at) - start).total_seconds())


@dataclass(frozen=True)
class Step:
    step_id: str  # "batch", "extern", "0"
    name: str
    start: dt.datetime
    end: dt.datetime | None
    nodes: tuple[str, ...]
    state: str
    exit_code: str
    billing: bool  # sacct lists billing in the extern step's AllocTRES, not the others'


def job_steps(rng: random.Random, job: Job, placement: Placement, window: Window) -> list[Step]:
    """The .batch, .extern and (for some jobs) .0 steps of a job that started."""
    end, state = run_end(job, placement, window)
    (step_state, step_exit), (extern_state, extern_exit) = STEP_STATES[state]
    start, nodes = placement.start, placement.nodes
    steps = [
        Step("batch", "batch", start, end, nodes[:1], step_state, step_exit, False),
        Step("extern", "extern", start, end, nodes, extern_state, extern_exit, True),
    ]
    srun_at = start + dt.timedelta(seconds=rng.randrange(3, 60))
    if job.has_srun_step and srun_at < (end or window.extracted_at):
        stop = end and max(srun_at, end - dt.timedelta(seconds=rng.randrange(1, 10)))
        name = "torchrun" if len(nodes) > 1 else rng.choice(("python", "python3", "bash"))
        steps.append(Step("0", name, srun_at, stop, nodes, step_state, step_exit, False))
    return steps


def step_row(job: Job, step: Step, window: Window) -> dict[str, str]:
    """A step's sacct row: no partition, QOS, user or ReqTRES; GPUs of its own nodes."""
    cpus = job.gpus * len(step.nodes) // job.node_count * job.cpus_per_gpu
    return {
        "jobid": f"{job.job_id}.{step.step_id}",
        "jobidraw": f"{job.raw_id}.{step.step_id}",
        "cluster": CLUSTER,
        "account": job.account,
        "submit": sacct_time(step.start),
        "eligible": sacct_time(step.start),
        "start": sacct_time(step.start),
        "end": sacct_time(step.end),
        "elapsed": slurm_duration(elapsed(step.start, step.end, window)),
        "exitcode": step.exit_code,
        "state": step.state,
        "nnodes": str(len(step.nodes)),
        "ncpus": str(cpus),
        "reqcpus": str(cpus),
        "reqmem": f"{job.mem_per_node_mb}M",
        "alloctres": tres(job, len(step.nodes), billing=step.billing),
        "nodelist": hostlist(step.nodes),
        "jobname": step.name,
    }


def week_file(end: dt.datetime) -> str:
    year, week, _ = end.isocalendar()
    return f"sacct_{year}-W{week:02d}.txt"


def sacct_files(
    rng: random.Random, jobs: Sequence[Job], placements: dict[int, Placement], window: Window
) -> dict[str, list[str]]:
    """Lines per weekly file: a job lands in the week its end falls in (open jobs: extraction)."""
    files: dict[str, list[str]] = {}
    for job in sorted(jobs, key=lambda j: j.raw_id):
        placement = placements.get(job.raw_id)
        end = run_end(job, placement, window)[0] if placement else None
        lines = files.setdefault(week_file(end or window.extracted_at), [])
        lines.append(sacct_line(job_row(job, placement, window)))
        if placement is not None:
            steps = job_steps(rng, job, placement, window)
            lines += [sacct_line(step_row(job, step, window)) for step in steps]
    return dict(sorted(files.items()))
