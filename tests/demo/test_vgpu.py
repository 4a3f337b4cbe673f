"""The vGPU host sampler's file: no GPU's vGPU fractions over-committed, and VMs that come
and go, owned by policy/demo or known only by their domain id."""

from __future__ import annotations

import collections
import datetime as dt

from extractors.records import ParseResult
from tests.demo.evidence import EXTRACTED, PERIOD_END, PERIOD_START, owners, weights


def test_vgpu_fractions_never_exceed_a_gpu(
    vgpu: ParseResult, inventory: dict[str, list[str]]
) -> None:
    fraction = weights("vgpu")
    samples = vgpu.tables["vgpu_samples"]
    per_poll: dict[tuple[str, dt.datetime], list] = collections.defaultdict(list)
    for sample in samples:
        per_poll[(sample.gpu_uuid, sample.sampled_at)].append(sample)
    profiles = collections.defaultdict(set)
    for (gpu, _), active in per_poll.items():
        assert sum(fraction[s.vgpu_type_name.removeprefix("NVIDIA ")] for s in active) <= 1
        profiles[gpu] |= {s.vgpu_type_name for s in active}
    assert all(len(types) == 1 for types in profiles.values()), "one vGPU type per GPU"
    for poll in vgpu.tables["vgpu_hosts"]:
        assert poll.active_vgpu_count == len(per_poll.get((poll.gpu_uuid, poll.sampled_at), []))
    assert {p.gpu_uuid for p in vgpu.tables["vgpu_hosts"]} == set(inventory["hv-a100-01"])


def test_vgpu_vms_come_and_go_and_are_owned(vgpu: ParseResult) -> None:
    seen: dict[tuple[str, str], list[dt.datetime]] = collections.defaultdict(list)
    for sample in vgpu.tables["vgpu_samples"]:
        seen[(sample.vm_id, sample.vm_id_type)].append(sample.sampled_at)
    policy = owners("vm")
    by_uuid = [vm for vm, kind in seen if kind == "uuid"]
    assert 4 <= len(by_uuid) <= 6
    assert all(vm in policy for vm in by_uuid)
    assert {policy[vm] for vm in by_uuid} == {"ember", "cirrus"}
    assert [vm for vm, kind in seen if kind == "domain_id"] == ["17"]
    assert "17" not in policy
    assert sum(PERIOD_START < min(t) < PERIOD_END for t in seen.values()) >= 3
    assert sum(PERIOD_START < max(t) < PERIOD_END for t in seen.values()) >= 3
    assert any(max(t) == EXTRACTED for t in seen.values())
