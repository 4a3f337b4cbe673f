"""Typed rows of the vGPU host sampler (the hypervisor's view, authoritative for vGPU).

Host evidence only. A guest's own NVML/DCGM readings describe the same activity from inside
the VM, relative to the vGPU's share; they reconcile with these rows and are never summed
with them.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

HOSTS_TABLE = "vgpu_hosts"
SAMPLES_TABLE = "vgpu_samples"


@dataclass(frozen=True)
class VgpuHostPoll:
    """One poll of one physical GPU on a vGPU host: which vGPU instances were active.

    A poll with `error` or a null `active_vgpu_count` says nothing about which vGPUs were
    present; staging does not end an assignment on such a poll.
    """

    host: str
    sampled_at: dt.datetime
    interval_seconds: float
    gpu_uuid: str | None
    gpu_index: int
    gpu_name: str | None
    active_vgpu_count: int | None
    null_reasons: str | None
    error: str | None
    source_line: int


@dataclass(frozen=True)
class VgpuSample:
    """One active vGPU instance on one physical GPU at one poll.

    `vm_id_type` is `uuid` (the VM's UUID, the key policy ownership uses) or `domain_id` (a
    hypervisor-local domain number). `fb_used_bytes` is framebuffer in use, in bytes. The
    utilisation percentages are NVML's host-side per-vGPU readings (nvmlDeviceGetVgpuUtilization),
    averaged over the samples NVML held since the previous poll (`util_sample_count`).
    """

    host: str
    sampled_at: dt.datetime
    interval_seconds: float
    next_poll_due_at: dt.datetime  # sampled_at + interval_seconds: when the next poll was due
    gpu_uuid: str
    gpu_index: int
    gpu_name: str | None
    vgpu_instance: int
    vgpu_uuid: str | None
    vm_id: str | None
    vm_id_type: str | None
    vgpu_type_id: int | None
    vgpu_type_name: str | None
    fb_used_bytes: int | None
    sm_util_percent: float | None
    mem_util_percent: float | None
    enc_util_percent: float | None
    dec_util_percent: float | None
    util_sample_count: int | None
    null_reasons: str | None
    error: str | None
    source_line: int


RAW_TABLES: dict[str, type] = {HOSTS_TABLE: VgpuHostPoll, SAMPLES_TABLE: VgpuSample}
