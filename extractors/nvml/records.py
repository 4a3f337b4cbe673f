"""Typed rows of the NVML sampler source: device inventory, device samples, GPU processes.

Units are NVML's own (bytes, percent, milliwatts, millijoules); staging converts them once.
`null_reasons` is JSON text `{"field": "reason"}` saying why a field is null (for example
`{"utilization_gpu_percent": "not_supported"}` on a MIG device); `error` is set on a row whose
device could not be read at all (`gpu_is_lost: GPU is lost`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

DEVICES_TABLE = "nvml_devices"
SAMPLES_TABLE = "nvml_samples"
PROCESSES_TABLE = "nvml_processes"


@dataclass(frozen=True)
class NvmlDevice:
    """One GPU or MIG device as the sampler saw it at `observed_at` (device_kind gpu | mig)."""

    host: str
    observed_at: dt.datetime
    device_uuid: str | None  # GPU-... or MIG-...; None only on an error row
    gpu_uuid: str | None  # the physical GPU (the device itself for a whole GPU)
    device_kind: str
    gpu_index: int
    mig_index: int | None
    device_name: str | None  # NVML's name of this device ("... MIG 3g.40gb" for MIG)
    gpu_name: str | None  # the physical GPU's model name ("NVIDIA A100-SXM4-80GB")
    memory_total_bytes: int | None
    mig_mode_current: int | None  # 1 enabled, 0 disabled, None unsupported
    mig_mode_pending: int | None
    mig_profile: str | None  # as NVML names it: "3g.40gb", "1c.3g.40gb" (compute instance)
    gpu_instance_id: int | None
    compute_instance_id: int | None
    null_reasons: str | None
    error: str | None
    source_line: int


@dataclass(frozen=True)
class NvmlSample:
    """One reading of one GPU or MIG device at `sampled_at` (the sampler's clock, UTC)."""

    host: str
    sampled_at: dt.datetime
    interval_seconds: float
    device_uuid: str | None
    gpu_uuid: str | None
    device_kind: str
    gpu_index: int
    gpu_instance_id: int | None
    compute_instance_id: int | None
    utilization_gpu_percent: float | None
    utilization_memory_percent: float | None
    memory_used_bytes: int | None
    memory_total_bytes: int | None
    power_mw: int | None
    energy_mj: int | None  # NVML's counter since the driver loaded
    process_count: int | None
    null_reasons: str | None
    error: str | None
    source_line: int


@dataclass(frozen=True)
class NvmlProcess:
    """One compute process on one GPU or MIG device at `sampled_at`, with its resolved owner.

    owner_kind: k8s_pod (pod_uid, container_id), slurm_job (slurm_job_id = the raw job id
    of the cgroup, SLURM_JOB_ID), other (a cgroup that is neither), unresolved (no cgroup).
    """

    host: str
    sampled_at: dt.datetime
    interval_seconds: float
    pid: int
    gpu_uuid: str
    device_uuid: str
    gpu_index: int
    gpu_instance_id: int | None
    compute_instance_id: int | None
    used_gpu_memory_bytes: int | None
    sm_util_percent: float | None
    null_reasons: str | None
    cgroup_path: str | None
    owner_kind: str
    pod_uid: str | None
    container_id: str | None
    slurm_job_id: str | None
    slurm_step_id: str | None
    owner_error: str | None
    source_line: int


RAW_TABLES: dict[str, type] = {
    DEVICES_TABLE: NvmlDevice,
    SAMPLES_TABLE: NvmlSample,
    PROCESSES_TABLE: NvmlProcess,
}
