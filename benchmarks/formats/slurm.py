"""The Slurm cluster's accounting of one day: `sacct --parsable2` text (sacct's header, then
Open XDMoD's 26 fields), each job's row followed by its .batch and .extern step rows, the
jobs that ended that day (`sacct -S day -E next-day --state=CD,F`, as a daily export runs it).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from benchmarks.fleet import GPU_CLASS, Fleet, Run
from extractors.slurm.text import DISPLAY, XDMOD_FIELDS
from gpuledger.demo.slurm.sacct import STATE_EXIT, STEP_STATES, sacct_line, sacct_time
from gpuledger.demo.slurm.sacct import slurm_duration as duration

CLUSTER = "bench"
CPUS_PER_GPU = 16
MEM_PER_GPU_MB = 128_000
HEADER = "|".join(DISPLAY[field] for field in XDMOD_FIELDS)


def _tres(gpus: int, billing: bool = True, typed: bool = True) -> str:
    cpus = gpus * CPUS_PER_GPU
    parts = [f"billing={cpus}"] if billing else []
    parts.append(f"cpu={cpus}")
    if typed:
        parts.append(f"gres/gpu:{GPU_CLASS}={gpus}")
    return ",".join([*parts, f"gres/gpu={gpus}", f"mem={gpus * MEM_PER_GPU_MB}M", "node=1"])


def job_lines(run: Run) -> list[str]:
    """The job's row and its .batch and .extern steps' rows."""
    seconds = int((run.end - run.start).total_seconds())
    submit = run.start - dt.timedelta(seconds=run.run_id % 600)
    common = {
        "cluster": CLUSTER,
        "account": run.owner,
        "nnodes": "1",
        "ncpus": str(run.gpus * CPUS_PER_GPU),
        "reqcpus": str(run.gpus * CPUS_PER_GPU),
        "reqmem": f"{run.gpus * MEM_PER_GPU_MB}M",
        "start": sacct_time(run.start),
        "end": sacct_time(run.end),
        "elapsed": duration(seconds),
        "nodelist": run.node.name,
    }
    job = common | {
        "jobid": str(run.run_id),
        "jobidraw": str(run.run_id),
        "partition": "gpu",
        "qos": "normal",
        "group": f"g-{run.owner}",
        "gid": str(5000 + run.run_id % 50),
        "user": f"u{run.run_id % 997:03d}",
        "uid": str(20_000 + run.run_id % 997),
        "submit": sacct_time(submit),
        "eligible": sacct_time(submit),
        "exitcode": STATE_EXIT[run.state],
        "state": run.state,
        "reqtres": _tres(run.gpus, typed=False),
        "alloctres": _tres(run.gpus),
        "timelimit": duration(max(seconds, 86400)),
        "jobname": f"train-{run.run_id % 113}",
    }
    (step_state, step_exit), (extern_state, extern_exit) = STEP_STATES[run.state]
    lines = [sacct_line(job)]
    for step, state, exit_code, billing in (
        ("batch", step_state, step_exit, False),
        ("extern", extern_state, extern_exit, True),
    ):
        row = common | {
            "jobid": f"{run.run_id}.{step}",
            "jobidraw": f"{run.run_id}.{step}",
            "submit": sacct_time(run.start),
            "eligible": sacct_time(run.start),
            "exitcode": exit_code,
            "state": state,
            "alloctres": _tres(run.gpus, billing=billing),
            "jobname": step,
        }
        lines.append(sacct_line(row))
    return lines


def write_sacct_day(path: Path, fleet: Fleet, day: dt.datetime) -> int:
    """Write the day's jobs (the header, then node by node); returns the records (lines
    after the header) written."""
    written = 0
    with path.open("w", encoding="utf-8") as out:
        out.write(HEADER + "\n")
        for node in fleet.slurm_nodes:
            for run in fleet.runs(day, node):
                lines = job_lines(run)
                out.write("\n".join(lines) + "\n")
                written += len(lines)
    return written
