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

from extractors.inventory.client import ingest_file as ingest_inventory
from extractors.kubernetes.client import ingest_file as ingest_kubernetes
from extractors.kubernetes.parse import ParseOptions
from extractors.landing import LandingReport
from extractors.nvml.client import ingest_file as ingest_nvml
from extractors.prometheus.client import ingest_file as ingest_prometheus
from extractors.requests.client import ingest_file as ingest_requests
from extractors.slurm.client import ingest_file as ingest_slurm
from extractors.vgpu.client import ingest_file as ingest_vgpu
from gpuledger.close import CloseOutcome, close_period
from gpuledger.demo.constants import K8S_CLUSTER
from gpuledger.demo.files import DemoFiles, generate
from gpuledger.report import render_report

QUARANTINE_LINES_SHOWN = 20


def ingest_demo(home: Path, files: DemoFiles) -> Iterator[LandingReport]:
    """Land every generated file through its source's client, one batch per file."""
    yield ingest_inventory(home, files.inventory)
    for path in files.sacct_files:
        yield ingest_slurm(home, path)
    options = ParseOptions(cluster=K8S_CLUSTER)
    for path in files.kubernetes_files:
        yield ingest_kubernetes(home, path, options)
    for path in files.vgpu_files:
        yield ingest_vgpu(home, path)
    for path in files.nvml_files:
        yield ingest_nvml(home, path)
    for path in files.prometheus_files:
        yield ingest_prometheus(home, path)
    for path in files.request_files:
        yield ingest_requests(home, path)


def landing_lines(report: LandingReport) -> list[str]:
    """A landing's summary and its first quarantined records (file:line, field, reason)."""
    lines = [report.summary()]
    for rejected in report.rejected[:QUARANTINE_LINES_SHOWN]:
        where = f"{report.file}:{rejected.line}"
        lines.append(f"  quarantined {where}: field {rejected.field}: {rejected.reason}")
    hidden = len(report.rejected) - QUARANTINE_LINES_SHOWN
    if hidden > 0:
        lines.append(f"  ... and {hidden} more (all kept in quarantine)")
    return lines


def close_lines(outcome: CloseOutcome) -> list[str]:
    """The reconciliation checks of a close (a blocking failure with its detail) and its
    outcome."""
    lines = []
    if outcome.checks:
        lines.append(f"reconciliation checks for {outcome.period}:")
        for check in outcome.checks:
            marker = "BLOCKS" if check.blocks else ""
            limit = "" if check.limit_value is None else f" (limit {check.limit_value})"
            observed = "-" if check.observed_value is None else str(check.observed_value)
            lines.append(
                f"  {check.status.upper():<15} {check.check_name:<38} {observed} {check.unit}"
                f"{limit} {marker}".rstrip()
            )
            if check.blocks:
                lines.append(f"      {check.detail}")
    lines.append(outcome.message)
    return lines


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
