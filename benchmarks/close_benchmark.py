"""Benchmark: land a synthetic fleet month and time `gpuledger close` on it.

    python -m benchmarks.close_benchmark --gpus 4096 --jobs 1000000 [--results PATH]

The fleet is `gpus / 8` nodes of 8 H100s; each node is split into lanes of 4, 2, 1 and 1
GPUs that run jobs back to back, so allocations never exceed capacity. Jobs belong to 60
Slurm accounts owned by 20 tenants (10 with reservations), with ~0.5% under an unmapped
account. Rows go through the real landing writer; the close is the real CLI in a subprocess,
timed wall-clock with its peak resident memory (max RSS of the child processes). Results are
appended to benchmarks/results.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from extractors.inventory.records import DEVICES_TABLE, InventoryDevice
from extractors.landing import land
from extractors.records import ParseResult
from extractors.slurm.records import JOBS_TABLE, RAW_TABLES, SlurmJob

PERIOD_START = dt.datetime(2026, 10, 1)
PERIOD_END = dt.datetime(2026, 11, 1)
LANES = (4, 2, 1, 1)
TENANTS = 20
ACCOUNTS = 60


def _policy(folder: Path, gpus: int) -> Path:
    """Ten of the tenants reserve half the fleet between them."""
    folder.mkdir(parents=True, exist_ok=True)
    reserved_gpus = gpus // 20
    tenants = [f"t{i:02d}" for i in range(TENANTS)]
    files = {
        "tenants.csv": ["tenant_id,tenant_name,department,cost_center"]
        + [f"{t},Tenant {t},dept,cc-{t}" for t in tenants],
        "ownership.csv": ["scope_type,scope_key,tenant_id,project_id,valid_from,valid_to"]
        + [
            f"slurm_account,acct{a:02d},{tenants[a % TENANTS]},,2026-01-01T00:00:00Z,"
            for a in range(ACCOUNTS)
        ],
        "reservations.csv": ["tenant_id,gpu_class,reserved_gpus,service_class,valid_from,valid_to"]
        + [f"{t},h100,{reserved_gpus},research,2026-01-01T00:00:00Z," for t in tenants[:10]],
        "rate_card.csv": [
            "rate_card_version,valid_from,valid_to,gpu_class,charge_basis,unit_price,currency",
            "b1,2026-01-01T00:00:00Z,,h100,reserved_gpu_hour,2.00,USD",
            "b1,2026-01-01T00:00:00Z,,h100,borrowed_gpu_hour,3.00,USD",
        ],
        "cost_pools.csv": ["period,gpu_class,total_cost,fixed_share,currency"],
        "partition_weights.csv": ["sharing_mode,gpu_model,profile,capacity_fraction"],
        "gpu_classes.csv": ["gpu_model,gpu_class", "NVIDIA H100 80GB HBM3,h100"],
        "credits.csv": ["period,tenant_id,amount,reason,adjustment_id"],
        "overheads.csv": ["period,overhead_id,amount,currency,description"],
        "settings.csv": [
            "key,value",
            "charging_model,quota_burst",
            "unattributed_tolerance_pct,2",
            "overhead_driver,allocated_hours",
            "currency,USD",
        ],
    }
    for name, lines in files.items():
        (folder / name).write_text("\n".join(lines) + "\n")
    return folder


def _job(
    job_id: int, account: str, node: str, gpus: int, start: dt.datetime, end: dt.datetime
) -> SlurmJob:
    tres = f"billing={gpus},cpu={gpus},gres/gpu:h100={gpus},gres/gpu={gpus},mem=64000M,node=1"
    return SlurmJob(
        cluster="bench", job_id=str(job_id), job_id_raw=str(job_id), array_job_id=None,
        array_task_id=None, step_id=None, job_name="bench", user_name="u", uid="1000",
        group_name="g", gid="100", account=account, partition="gpu", qos="normal",
        state="COMPLETED", state_detail=None, exit_code=0, exit_signal=0, submit_at=start,
        eligible_at=start, start_at=start, end_at=end,
        elapsed_seconds=int((end - start).total_seconds()), timelimit_minutes=None,
        node_count=1, cpu_count=gpus, node_list=node, node_names=node, alloc_tres=tres,
        req_tres=tres, alloc_gpu_count=gpus, req_gpu_count=gpus, gpu_type="h100",
        mig_profile=None, source_line=job_id,
    )  # fmt: skip


def generate(home: Path, gpus: int, jobs: int, seed: int) -> int:
    rng = random.Random(seed)
    nodes = [f"node{i:05d}" for i in range(gpus // 8)]
    inventory = ParseResult(records_read=len(nodes) * 8)
    for node in nodes:
        for index in range(8):
            inventory.add(
                DEVICES_TABLE,
                InventoryDevice(f"GPU-{node}-{index}", node, "NVIDIA H100 80GB HBM3", "h100",
                                dt.datetime(2025, 1, 1), None, 1),
            )  # fmt: skip
    now = dt.datetime(2026, 11, 2)
    land(
        home,
        source="inventory",
        file="bench-inventory",
        content=b"bench-inv-%d" % gpus,
        options="",
        result=inventory,
        row_types={DEVICES_TABLE: InventoryDevice},
        extracted_at=now,
    )
    lanes = [(node, size) for node in nodes for size in LANES]
    per_lane = max(1, jobs // len(lanes))
    mean_seconds = (PERIOD_END - PERIOD_START).total_seconds() * 0.8 / per_lane
    result = ParseResult()
    job_id = 0
    for node, size in lanes:
        cursor = PERIOD_START - dt.timedelta(seconds=rng.uniform(0, mean_seconds))
        for _ in range(per_lane):
            gap = dt.timedelta(seconds=rng.expovariate(4 / mean_seconds))
            length = dt.timedelta(seconds=max(60, rng.expovariate(1 / mean_seconds)))
            start, end = cursor + gap, cursor + gap + length
            cursor = end
            account = "unmapped" if rng.random() < 0.005 else f"acct{rng.randrange(ACCOUNTS):02d}"
            job_id += 1
            result.add(JOBS_TABLE, _job(job_id, account, node, size, start, end))
    result.records_read = job_id
    land(home, source="slurm", file="bench-sacct", content=b"bench-%d-%d-%d" % (gpus, jobs, seed),
         options="", result=result, row_types=RAW_TABLES, extracted_at=now)  # fmt: skip
    return job_id


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, default=512)
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/gpuledger-bench"))
    parser.add_argument("--results", type=Path, default=Path(__file__).with_name("results.md"))
    args = parser.parse_args()

    shutil.rmtree(args.workdir, ignore_errors=True)
    home, policy = args.workdir / "home", _policy(args.workdir / "policy", args.gpus)
    t0 = time.perf_counter()
    landed = generate(home, args.gpus, args.jobs, args.seed)
    land_s = time.perf_counter() - t0
    gpuledger = Path(sys.executable).with_name("gpuledger")
    t1 = time.perf_counter()
    close = subprocess.run(
        [str(gpuledger), "--home", str(home), "--policy", str(policy), "close", "--period",
         "2026-10", "--approver", "bench"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    close_s = time.perf_counter() - t1
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(close.stdout[-2000:], close.stderr[-2000:])
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    line = (
        f"| {dt.date.today()} | {commit} | {args.gpus} | {landed:,} | {land_s:.1f} "
        f"| {close_s:.1f} | {peak_mib:,.0f} | {close.returncode} "
        f"| {os.cpu_count()} cores, {platform.python_version()} |"
    )
    if not args.results.exists():
        args.results.write_text(
            "# gpuledger close benchmark\n\n"
            "`python -m benchmarks.close_benchmark --gpus N --jobs M` (`make bench`). "
            "Close = build + reconciliation + publish, wall clock.\n\n"
            "| date | commit | GPUs | jobs | land s | close s | peak RSS MiB | exit | machine |\n"
            "|---|---|---|---|---|---|---|---|---|\n"
        )
    with args.results.open("a") as out:
        out.write(line + "\n")
    print(line)
    return close.returncode


if __name__ == "__main__":
    sys.exit(main())
