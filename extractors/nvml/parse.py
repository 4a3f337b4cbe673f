"""Parse the NVML sampler's JSON Lines into device, sample and process rows (pure).

One JSON object per line; `record_type` says which:

- `device`: a physical GPU and its MIG devices, `{host, observed_at, uuid, index, name,
  memory_total_bytes, mig_mode_current, mig_mode_pending, mig_devices: [{uuid, index, name,
  profile, gpu_instance_id, compute_instance_id, memory_total_bytes}], null_reasons, error}`.
  One record lands one row for the GPU and one per MIG device.
- `sample`: one GPU or MIG device, `{host, sampled_at, interval_seconds, device_uuid,
  gpu_uuid, device_kind (gpu|mig), gpu_index, gpu_instance_id, compute_instance_id,
  utilization_gpu_percent, utilization_memory_percent, memory_used_bytes, memory_total_bytes,
  power_mw, energy_mj, process_count, null_reasons, error}`.
- `process`: one compute process, `{host, sampled_at, interval_seconds, pid, gpu_uuid,
  device_uuid, gpu_index, gpu_instance_id, compute_instance_id, used_gpu_memory_bytes,
  sm_util_percent, null_reasons, owner: {cgroup_path, kind, pod_uid, container_id,
  slurm_job_id, slurm_step_id, error}}`.

Units are NVML's: bytes, percent, mW, mJ. Timestamps carry a zone (the sampler writes `Z`).
A null metric says why in `null_reasons` (`{"utilization_gpu_percent": "not_supported"}`);
a device that could not be read at all has `error` set and null metrics. A bad record is
quarantined with its line and the field at fault.
"""

from __future__ import annotations

from typing import Any

from extractors import jsonl
from extractors.jsonl import Builder, FieldError, Rows
from extractors.nvml.owner import OWNER_KINDS
from extractors.nvml.records import (
    DEVICES_TABLE,
    PROCESSES_TABLE,
    SAMPLES_TABLE,
    NvmlDevice,
    NvmlProcess,
    NvmlSample,
)
from extractors.records import ParseResult

DEVICE_KINDS = ("gpu", "mig")


def parse_nvml_jsonl(text: str) -> ParseResult:
    """Every non-blank line is one record: landed (one or more rows) or quarantined."""
    return jsonl.parse_records(text, _BUILDERS)


def nvml_stream() -> jsonl.JsonlStream:
    """The same parser fed a file piece by piece (extractors.textfile.land_pieces)."""
    return jsonl.JsonlStream(jsonl.by_record_type(_BUILDERS))


def _device(obj: dict[str, Any], line: int) -> Rows:
    error = jsonl.text(obj, "error", required=False)
    common = {
        "host": jsonl.text(obj, "host"),
        "observed_at": jsonl.timestamp(obj, "observed_at"),
        "gpu_index": jsonl.integer(obj, "index"),
        "mig_mode_current": jsonl.integer(obj, "mig_mode_current", required=False, maximum=1),
        "mig_mode_pending": jsonl.integer(obj, "mig_mode_pending", required=False, maximum=1),
        "null_reasons": jsonl.reasons(obj),
        "error": error,
        "source_line": line,
    }
    uuid = jsonl.text(obj, "uuid", required=error is None)
    gpu_name = jsonl.text(obj, "name", required=False)
    rows: Rows = [
        (
            DEVICES_TABLE,
            NvmlDevice(
                device_uuid=uuid,
                gpu_uuid=uuid,
                device_kind="gpu",
                mig_index=None,
                device_name=gpu_name,
                gpu_name=gpu_name,
                memory_total_bytes=jsonl.integer(obj, "memory_total_bytes", required=False),
                mig_profile=None,
                gpu_instance_id=None,
                compute_instance_id=None,
                **common,
            ),
        )
    ]
    migs = obj.get("mig_devices") or []
    if not isinstance(migs, list):
        raise FieldError("mig_devices", f"expected a list, got {type(migs).__name__}")
    for position, mig in enumerate(migs):
        try:
            if not isinstance(mig, dict):
                raise FieldError("", f"expected an object, got {type(mig).__name__}")
            row = NvmlDevice(
                device_uuid=jsonl.text(mig, "uuid"),
                gpu_uuid=uuid,
                device_kind="mig",
                mig_index=jsonl.integer(mig, "index"),
                device_name=jsonl.text(mig, "name", required=False),
                gpu_name=gpu_name,
                memory_total_bytes=jsonl.integer(mig, "memory_total_bytes", required=False),
                mig_profile=jsonl.text(mig, "profile", required=False),
                gpu_instance_id=jsonl.integer(mig, "gpu_instance_id", required=False),
                compute_instance_id=jsonl.integer(mig, "compute_instance_id", required=False),
                **(common | {"null_reasons": jsonl.reasons(mig)}),
            )
        except FieldError as err:
            where = f"mig_devices[{position}]" + (f".{err.field}" if err.field else "")
            raise FieldError(where, err.reason) from None
        rows.append((DEVICES_TABLE, row))
    return rows


def _sample(obj: dict[str, Any], line: int) -> Rows:
    error = jsonl.text(obj, "error", required=False)
    device_uuid = jsonl.text(obj, "device_uuid", required=error is None)
    return [
        (
            SAMPLES_TABLE,
            NvmlSample(
                **jsonl.sampled(obj),
                device_uuid=device_uuid,
                gpu_uuid=jsonl.text(obj, "gpu_uuid", required=error is None),
                device_kind=jsonl.choice(obj, "device_kind", DEVICE_KINDS),
                gpu_index=jsonl.integer(obj, "gpu_index"),
                gpu_instance_id=jsonl.integer(obj, "gpu_instance_id", required=False),
                compute_instance_id=jsonl.integer(obj, "compute_instance_id", required=False),
                utilization_gpu_percent=jsonl.percent(obj, "utilization_gpu_percent"),
                utilization_memory_percent=jsonl.percent(obj, "utilization_memory_percent"),
                memory_used_bytes=jsonl.integer(obj, "memory_used_bytes", required=False),
                memory_total_bytes=jsonl.integer(obj, "memory_total_bytes", required=False),
                power_mw=jsonl.integer(obj, "power_mw", required=False),
                energy_mj=jsonl.integer(obj, "energy_mj", required=False),
                process_count=jsonl.integer(obj, "process_count", required=False),
                null_reasons=jsonl.reasons(obj),
                error=error,
                source_line=line,
            ),
        )
    ]


def _process(obj: dict[str, Any], line: int) -> Rows:
    owner = jsonl.nested(obj, "owner")
    try:
        kind = jsonl.choice(owner, "kind", OWNER_KINDS)
        owner_fields = {
            "cgroup_path": jsonl.text(owner, "cgroup_path", required=False),
            "owner_kind": kind,
            "pod_uid": jsonl.text(owner, "pod_uid", required=kind == "k8s_pod"),
            "container_id": jsonl.text(owner, "container_id", required=False),
            "slurm_job_id": jsonl.text(owner, "slurm_job_id", required=kind == "slurm_job"),
            "slurm_step_id": jsonl.text(owner, "slurm_step_id", required=False),
            "owner_error": jsonl.text(owner, "error", required=False),
        }
    except FieldError as err:
        raise FieldError(f"owner.{err.field}", err.reason) from None
    return [
        (
            PROCESSES_TABLE,
            NvmlProcess(
                **jsonl.sampled(obj),
                pid=jsonl.integer(obj, "pid", minimum=1),
                gpu_uuid=jsonl.text(obj, "gpu_uuid"),
                device_uuid=jsonl.text(obj, "device_uuid"),
                gpu_index=jsonl.integer(obj, "gpu_index"),
                gpu_instance_id=jsonl.integer(obj, "gpu_instance_id", required=False),
                compute_instance_id=jsonl.integer(obj, "compute_instance_id", required=False),
                used_gpu_memory_bytes=jsonl.integer(obj, "used_gpu_memory_bytes", required=False),
                sm_util_percent=jsonl.percent(obj, "sm_util_percent"),
                null_reasons=jsonl.reasons(obj),
                source_line=line,
                **owner_fields,
            ),
        )
    ]


_BUILDERS: dict[str, Builder] = {
    "device": _device,
    "sample": _sample,
    "process": _process,
}
