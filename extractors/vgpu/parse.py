"""Parse the vGPU host sampler's JSON Lines into host-poll and vGPU rows (pure).

One JSON object per line; `record_type` says which:

- `host_gpu`: one poll of one physical GPU, `{host, sampled_at, interval_seconds, gpu_uuid,
  gpu_index, gpu_name, active_vgpu_count, null_reasons, error}`;
- `vgpu`: one active vGPU instance at that poll, `{host, sampled_at, interval_seconds,
  gpu_uuid, gpu_index, gpu_name, vgpu_instance, vgpu_uuid, vm_id, vm_id_type (uuid |
  domain_id), vgpu_type_id, vgpu_type_name, fb_used_bytes, sm_util_percent, mem_util_percent,
  enc_util_percent, dec_util_percent, util_sample_count, null_reasons, error}`.

Timestamps carry a zone; bytes and percent as NVML gives them. A bad record is quarantined
with its line and the field at fault. Each vGPU row also gets `next_poll_due_at` (sampled_at
+ interval_seconds), the latest moment one sighting vouches for (see stg_vgpu__assignments).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from extractors import jsonl
from extractors.jsonl import Builder, Rows
from extractors.records import ParseResult
from extractors.vgpu.records import HOSTS_TABLE, SAMPLES_TABLE, VgpuHostPoll, VgpuSample

VM_ID_TYPES = ("uuid", "domain_id")


def parse_vgpu_jsonl(text: str) -> ParseResult:
    return jsonl.parse_records(text, _BUILDERS)


def vgpu_stream() -> jsonl.JsonlStream:
    """The same parser fed a file piece by piece (extractors.textfile.land_pieces)."""
    return jsonl.JsonlStream(jsonl.by_record_type(_BUILDERS))


def _host_gpu(obj: dict[str, Any], line: int) -> Rows:
    error = jsonl.text(obj, "error", required=False)
    return [
        (
            HOSTS_TABLE,
            VgpuHostPoll(
                **jsonl.sampled(obj),
                gpu_uuid=jsonl.text(obj, "gpu_uuid", required=error is None),
                gpu_index=jsonl.integer(obj, "gpu_index"),
                gpu_name=jsonl.text(obj, "gpu_name", required=False),
                active_vgpu_count=jsonl.integer(obj, "active_vgpu_count", required=False),
                null_reasons=jsonl.reasons(obj),
                error=error,
                source_line=line,
            ),
        )
    ]


def _vgpu(obj: dict[str, Any], line: int) -> Rows:
    error = jsonl.text(obj, "error", required=False)
    vm_id = jsonl.text(obj, "vm_id", required=False)
    poll = jsonl.sampled(obj)
    due = poll["sampled_at"] + dt.timedelta(seconds=poll["interval_seconds"])
    return [
        (
            SAMPLES_TABLE,
            VgpuSample(
                **poll,
                next_poll_due_at=due,
                gpu_uuid=jsonl.text(obj, "gpu_uuid"),
                gpu_index=jsonl.integer(obj, "gpu_index"),
                gpu_name=jsonl.text(obj, "gpu_name", required=False),
                vgpu_instance=jsonl.integer(obj, "vgpu_instance"),
                vgpu_uuid=jsonl.text(obj, "vgpu_uuid", required=error is None),
                vm_id=vm_id,
                vm_id_type=jsonl.choice(obj, "vm_id_type", VM_ID_TYPES, required=vm_id is not None),
                vgpu_type_id=jsonl.integer(obj, "vgpu_type_id", required=False),
                vgpu_type_name=jsonl.text(obj, "vgpu_type_name", required=False),
                fb_used_bytes=jsonl.integer(obj, "fb_used_bytes", required=False),
                sm_util_percent=jsonl.percent(obj, "sm_util_percent"),
                mem_util_percent=jsonl.percent(obj, "mem_util_percent"),
                enc_util_percent=jsonl.percent(obj, "enc_util_percent"),
                dec_util_percent=jsonl.percent(obj, "dec_util_percent"),
                util_sample_count=jsonl.integer(obj, "util_sample_count", required=False),
                null_reasons=jsonl.reasons(obj),
                error=error,
                source_line=line,
            ),
        )
    ]


_BUILDERS: dict[str, Builder] = {"host_gpu": _host_gpu, "vgpu": _vgpu}
