"""`gpuledger ingest slurm --live` against a real Slurm 22.05 cluster on loopback.

The session fixture runs scripts/slurm/start.sh (it installs the Debian packages when missing,
so it needs root and apt-get) and scripts/slurm/stop.sh at the end. Jobs of two accounts run
as real users; the live ingest lands them, a rerun lands nothing new, and after a build
marts.fact_gpu_allocation holds, per account, the GPU-seconds sacct itself says the jobs held.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import subprocess
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.conftest import REPO, run_cli, sql, write_inventory, write_policy

SCRIPTS = REPO / "scripts" / "slurm"
CLUSTER = "ledgertest"
FINAL_STATES = frozenset(
    {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED"}
)
WINDOW_LINE = re.compile(
    r"^window (\d+)/(\d+) (\S+): read (\d+), landed (\d+), quarantined (\d+)"
    r"( \(already landed\))?$"
)


def _skip_reason() -> str | None:
    if os.geteuid() != 0:
        return "needs root: scripts/slurm/start.sh installs and starts Slurm, MariaDB and munge"
    if shutil.which("apt-get") is None and shutil.which("slurmctld") is None:
        return "needs apt-get (Debian 12) to install Slurm, or Slurm installed"
    return None


def _script(name: str) -> float:
    """Run scripts/slurm/NAME; its phase timings go to the terminal; returns seconds taken."""
    began = time.monotonic()
    done = subprocess.run(
        [str(SCRIPTS / name)], capture_output=True, text=True, timeout=900, check=False
    )
    print(done.stdout, end="")
    assert done.returncode == 0, f"{name} failed ({done.returncode}):\n{done.stdout}{done.stderr}"
    return time.monotonic() - began


def _apt_lock_holders() -> list[str]:
    """The processes with the apt lock of scripts/apt_ensure.sh open: none once start.sh has
    returned, though the daemons it started (munged, slurmctld, ...) live on."""
    lock = os.environ.get("APT_LOCK", "/tmp/gpuledger-apt.lock")
    holders = []
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        try:
            if any(os.readlink(fd) == lock for fd in fd_dir.iterdir()):
                holders.append((fd_dir.parent / "comm").read_text().strip())
        except OSError:  # the process ended, or is not ours to read
            continue
    return holders


@pytest.fixture(scope="session")
def slurm_cluster() -> Iterator[None]:
    reason = _skip_reason()
    if reason is not None:
        pytest.skip(reason)
    print(f"\nslurm timing: setup {_script('start.sh'):.1f} s")
    holders = _apt_lock_holders()
    assert not holders, f"daemons hold the apt lock, the next apt_ensure.sh would wait: {holders}"
    yield
    print(f"\nslurm timing: stop {_script('stop.sh'):.1f} s")


def _run(*argv: str, user: str | None = None) -> str:
    command = ["runuser", "-u", user, "--", *argv] if user else list(argv)
    env = {**os.environ, "TZ": "UTC"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, f"{' '.join(command)}: {done.stderr}"
    return done.stdout


@dataclass(frozen=True)
class Spec:
    """One sbatch submission and what Slurm must make of it."""

    name: str
    user: str
    account: str
    options: tuple[str, ...]
    script: str
    gpus: int  # GPUs each job record holds
    state: str  # final state of each job record
    records: int = 1  # job records (array tasks)


SPECS = (
    Spec("gpu2", "alice", "atlas", ("--gres=gpu:2",), "sleep 4", 2, "COMPLETED"),
    Spec("h100", "bob", "boreal", ("--gres=gpu:h100:1",), "sleep 3", 1, "COMPLETED"),
    Spec(
        "steps", "carol", "atlas", ("--gres=gpu:h100:1", "-c2"), "srun sleep 2; srun true", 1,
        "COMPLETED",
    ),
    Spec("fail", "bob", "boreal", ("--gres=gpu:1",), "sleep 1; exit 1", 1, "FAILED"),
    Spec("cancel", "alice", "atlas", ("--gres=gpu:1",), "sleep 300", 1, "CANCELLED"),
    Spec("array", "bob", "boreal", ("--gres=gpu:1", "--array=0-1"), "sleep 2", 1, "COMPLETED", 2),
    Spec("cpu", "carol", "boreal", ("-c2",), "sleep 2", 0, "COMPLETED"),
)  # fmt: skip


@dataclass(frozen=True)
class Ran:
    job_ids: dict[str, str]  # spec name -> job id
    submitted_at: dt.datetime  # naive UTC
    seconds: float  # from the first sbatch until accounting was complete


def _squeue_state(job_id: str) -> str:
    return _run("squeue", "-h", "-j", job_id, "-o", "%T").strip()


def _wait(what: str, limit: float, ready: Callable[[], bool]) -> None:
    deadline = time.monotonic() + limit
    while not ready():
        assert time.monotonic() < deadline, f"timed out after {limit:.0f} s waiting for {what}"
        time.sleep(0.5)


def _accounting(job_ids: list[str]) -> list[tuple[str, str]]:
    out = _run("sacct", "-XPn", "--allusers", "-o", "JobID,State", "-j", ",".join(job_ids))
    return [(line.split("|")[0], line.split("|")[1]) for line in out.splitlines() if line]


@pytest.fixture(scope="session")
def ran_jobs(slurm_cluster: None) -> Ran:
    submitted_at = dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0)
    began = time.monotonic()
    job_ids = {}
    for spec in SPECS:
        out = _run(
            "sbatch", "--parsable", "-A", spec.account, "-J", spec.name, "--chdir=/tmp",
            "--output=/dev/null", *spec.options, "--wrap", spec.script, user=spec.user,
        )  # fmt: skip
        job_ids[spec.name] = out.strip().split(";")[0]
    cancel = job_ids["cancel"]
    _wait("the job to cancel to run", 60, lambda: _squeue_state(cancel) == "RUNNING")
    time.sleep(2)
    _run("scancel", cancel)
    _wait("the queue to drain", 120, lambda: not _run("squeue", "-h").strip())
    # sacct lags the queue: wait until every job record is there, in a final state
    expected = sum(spec.records for spec in SPECS)

    def accounted() -> bool:
        records = _accounting(list(job_ids.values()))
        return len(records) == expected and all(
            state.split()[0] in FINAL_STATES for _, state in records
        )

    _wait("sacct to report every job final", 60, accounted)
    seconds = time.monotonic() - began
    print(f"\nslurm timing: jobs {seconds:.1f} s (submit to accounting complete)")
    return Ran(job_ids=job_ids, submitted_at=submitted_at, seconds=seconds)


def _iso(value: dt.datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%S")


def _sacct_gpu_seconds(since: dt.datetime) -> dict[str, int]:
    """GPU-seconds per account as sacct reports the allocations ((End - Start) x gres/gpu)."""
    out = _run(
        "sacct", "-X", "-P", "-n", "--allusers", "--clusters", CLUSTER,
        "-o", "JobID,Account,Start,End,AllocTRES", "-S", _iso(since), "-E", "now",
    )  # fmt: skip
    seconds: dict[str, int] = defaultdict(int)
    for line in out.splitlines():
        _, account, start, end, tres = line.split("|")
        gpus = re.search(r"(?:^|,)gres/gpu=(\d+)", tres)
        if gpus and start not in ("", "Unknown", "None") and end not in ("", "Unknown"):
            held = dt.datetime.fromisoformat(end) - dt.datetime.fromisoformat(start)
            seconds[account] += int(held.total_seconds()) * int(gpus.group(1))
    return {account: s for account, s in seconds.items() if s}


def _windows(stdout: str) -> list[re.Match[str]]:
    matches = [WINDOW_LINE.match(line) for line in stdout.splitlines()]
    return [m for m in matches if m]


def _landed(home: Path, table: str) -> list[dict[str, object]]:
    rows = []
    for path in sorted((home / "raw" / table).glob("*.parquet")):
        rows += pq.read_table(path).to_pylist()
    return rows


def _landed_jobs(home: Path) -> list[tuple[str, str]]:
    return [(str(r["cluster"]), str(r["job_id"])) for r in _landed(home, "slurm_jobs")]


def test_live_ingest_lands_what_the_jobs_held(ran_jobs: Ran, tmp_path: Path) -> None:
    home = tmp_path / "home"
    since = ran_jobs.submitted_at - dt.timedelta(hours=1)
    live = ("ingest", "slurm", "--live", "--cluster", CLUSTER)

    first = run_cli(home, None, *live, "--since", _iso(since))
    assert first.exit_code == 0, first.stderr
    windows = _windows(first.stdout)
    assert windows and all(int(m[2]) == len(windows) for m in windows), first.stdout
    assert sum(int(m[5]) for m in windows) >= sum(spec.records for spec in SPECS)
    assert all(m[6] == "0" for m in windows), first.stdout
    landed = _landed_jobs(home)
    for spec in SPECS:
        job_id = ran_jobs.job_ids[spec.name]
        ids = {j for c, j in landed if c == CLUSTER and j.split("_")[0] == job_id}
        assert len(ids) == spec.records, (spec, ids)

    # the same command again: every window is already landed, or found nothing at all
    again = run_cli(home, None, *live, "--since", _iso(since))
    assert again.exit_code == 0, again.stderr
    assert all(m[7] or m[4] == "0" for m in _windows(again.stdout)), again.stdout
    assert _landed_jobs(home) == landed

    # resumed from the watermark: sacct is asked again for the last LAG, nothing new lands
    resumed = run_cli(home, None, *live)
    assert resumed.exit_code == 0, resumed.stderr
    assert set(_landed_jobs(home)) == set(landed)

    policy = write_policy(
        tmp_path / "policy",
        {
            "tenants": ["atlas,Atlas,,", "boreal,Boreal,,"],
            "ownership": [
                f"slurm_account,atlas,atlas,,{_iso(since - dt.timedelta(days=1))}Z,",
                f"slurm_account,boreal,boreal,,{_iso(since - dt.timedelta(days=1))}Z,",
            ],
            "rate_card": ["r,2020-01-01T00:00:00Z,,h100,allocated_gpu_hour,3600,USD"],
            "settings": ["charging_model,allocation_rate"],
        },
    )
    inventory = write_inventory(tmp_path / "inventory.csv", {"gpunode01": 8})
    assert run_cli(home, policy, "ingest", "inventory", "--file", str(inventory)).exit_code == 0
    built = run_cli(home, policy, "build")
    assert built.exit_code == 0, built.stderr

    held = sql(
        home,
        "select tenant_id, round(sum(allocated_gpu_hours) * 3600) "
        "from marts.fact_gpu_allocation group by all order by 1",
    )
    expected = _sacct_gpu_seconds(since)
    assert held == [(account, Decimal(s)) for account, s in sorted(expected.items())]
    assert {"atlas", "boreal"} <= set(expected)

    workloads = {
        row[0]: row[1:]
        for row in sql(
            home,
            "select job_id, account, job_state, alloc_gpu_count, exit_code "
            "from marts.dim_workload where cluster_id = ?",
            [CLUSTER],
        )
    }
    for spec in SPECS:
        job_id = ran_jobs.job_ids[spec.name]
        ids = [f"{job_id}_{task}" for task in range(spec.records)] if spec.records > 1 else [job_id]
        for one in ids:
            account, state, gpus, exit_code = workloads[one]
            assert (account, state, gpus) == (spec.account, spec.state, spec.gpus), spec
            assert exit_code == (1 if spec.state == "FAILED" else 0), spec
    steps = {
        r["step_id"]
        for r in _landed(home, "slurm_steps")
        if r["job_id"] == ran_jobs.job_ids["steps"]
    }
    assert steps == {"batch", "extern", "0", "1"}
