"""`gpuledger demo` from the generation on: a month of every source generated, landed through
the real ingest clients, closed, and its showback shown.

The caller prepares the home (the CLI keeps its never-wipe-a-non-demo-home rule); `run_demo`
starts from an empty one. Files are generated into a temporary directory and landed in the
order a deployment would: the inventory first (allocations are checked against it), the
schedulers' and hypervisor's allocation evidence, then the telemetry and request logs.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from extractors.filebatch import ReadOptions
from extractors.inventory.client import ingest_file as ingest_inventory
from extractors.kubernetes.files import ingest_file as ingest_kubernetes
from extractors.kubernetes.parse import ParseOptions
from extractors.landing import LandingReport
from extractors.nvml.client import ingest_file as ingest_nvml
from extractors.prometheus.client import ingest_file as ingest_prometheus
from extractors.requests.client import ingest_file as ingest_requests
from extractors.slurm.client import ingest_file as ingest_slurm
from extractors.vgpu.client import ingest_file as ingest_vgpu
from gpuledger.demo.constants import K8S_CLUSTER
from gpuledger.demo.files import DemoFiles, generate
from gpuledger.output import close_lines, landing_lines
from gpuledger.report import render_report
from gpuledger.runs import close_period


def ingest_demo(home: Path, files: DemoFiles) -> Iterator[LandingReport]:
    """Land every generated file through its source's client, one batch per file, each
    read at the extraction (`--extracted-at`)."""
    read = ReadOptions(extracted_at=files.extracted_at)
    yield ingest_inventory(home, files.inventory, read)
    for path in files.sacct_files:
        yield ingest_slurm(home, path, read=read)
    options = ParseOptions(cluster=K8S_CLUSTER)
    for path in files.kubernetes_files:
        yield ingest_kubernetes(
            home, path, options, ReadOptions(extracted_at=files.extracted_at_of(path))
        )
    for path in files.vgpu_files:
        yield ingest_vgpu(home, path, read)
    for path in files.nvml_files:
        yield ingest_nvml(home, path, read)
    for path in files.prometheus_files:
        yield ingest_prometheus(home, path, read)
    for path in files.request_files:
        yield ingest_requests(home, path, read)


def run_demo(
    home: Path, policy: Path, period: str, seed: int, *, out: Callable[[str], object] = print
) -> int:
    """Generate `period` of the demo fleet with `seed`, land every file into `home`, close the
    period under `policy` and show its showback; returns the close's exit code."""
    with tempfile.TemporaryDirectory(prefix="gpuledger-demo-") as tmp:
        files = generate(Path(tmp), period=period, seed=seed)
        out(f"demo fleet generated for {period} (seed {seed}) into {home}")
        for report in ingest_demo(home, files):
            for line in landing_lines(report):
                out(line)
    outcome = close_period(home, policy, period, approver="demo")
    for line in close_lines(outcome):
        out(line)
    out("")
    out(render_report(home, period, None, "table").rstrip("\n"))
    return outcome.exit_code
