"""Across sources: the month's unattributed GPU-hours are within the close's tolerance."""

from __future__ import annotations

import collections
import datetime as dt

from extractors.records import ParseResult
from tests.demo.evidence import (
    Kube,
    Row,
    gpu_equivalents,
    month_hours,
    namespace_tenants,
    owners,
    weights,
)


def test_unattributed_share_is_within_the_close_tolerance(
    jobs: list[Row], kube: Kube, vgpu: ParseResult
) -> None:
    """What the close's unattributed check will see: Slurm's unmapped accounts, the
    `sandbox` namespace and the VM known only by its domain id, against all GPU-hours."""
    hours: dict[tuple[str, str], float] = collections.Counter()
    for job in jobs:
        account = job.values["account"]
        owner = "-" if account in ("scratch", "hackathon") else account
        hours[("slurm", owner)] += job.month_gpu_hours
    tenants = namespace_tenants(kube)
    for interval in kube.intervals:
        owner = tenants[interval.namespace] or "-"
        hours[("kubernetes", owner)] += gpu_equivalents(interval) * month_hours(
            interval.start, interval.end
        )
    fraction, vm_owners = weights("vgpu"), owners("vm")
    for sample in vgpu.tables["vgpu_samples"]:
        end = sample.sampled_at + dt.timedelta(seconds=sample.interval_seconds)
        share = fraction[sample.vgpu_type_name.removeprefix("NVIDIA ")]
        hours[("vgpu", vm_owners.get(sample.vm_id, "-"))] += share * month_hours(
            sample.sampled_at, end
        )
    total = sum(hours.values())
    unattributed = {source: h for (source, owner), h in hours.items() if owner == "-"}
    print("\n2026-10 GPU-hours per source and owner:")
    for (source, owner), value in sorted(hours.items()):
        print(f"  {source:11s} {owner:14s} {value:10.1f}")
    print(f"  total {total:10.1f}  unattributed {100 * sum(unattributed.values()) / total:.2f}%")
    assert set(unattributed) == {"slurm", "kubernetes", "vgpu"}
    assert 0.005 <= sum(unattributed.values()) / total <= 0.015
    slurm = sum(h for (source, _), h in hours.items() if source == "slurm")
    capacity = 64 * 744 + 24 * 744 + 8 * (744 - 7 * 24)
    assert 0.5 <= slurm / capacity <= 0.8
