"""The vGPU host sampler's JSONL of `hv-a100-01`: A100D-40C and A100D-20C VMs coming and
going (`VIRTUAL_MACHINES`), one VM known only by its domain id."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Sequence

from gpuledger.demo.common import file_text, iso_us, json_line, office_factor, random_uuid, ticks
from gpuledger.demo.constants import (
    A100_MODEL,
    VGPU_GPU_TYPES,
    VGPU_HOST,
    VIRTUAL_MACHINES,
    Window,
)

# vGPU type -> (type id, framebuffer GiB)
VGPU_TYPES = {"A100D-40C": (560, 40), "A100D-20C": (559, 20)}
VGPU_POLL = dt.timedelta(hours=1)


def vgpu_jsonl(rng: random.Random, window: Window, gpu_uuids: Sequence[str]) -> str:
    """The host sampler's records of `VGPU_HOST`, polled every VGPU_POLL from the day before
    the period to the extraction: one `host_gpu` record per GPU and poll, one `vgpu` record
    per active vGPU."""
    instances = {
        vm.vm_id: (10 * (vm.gpu_index + 1) + n, random_uuid(rng))
        for n, vm in enumerate(VIRTUAL_MACHINES)
    }
    lines = []
    start = window.period_start - dt.timedelta(days=1)
    lifetimes = [
        (vm, window.at(vm.start), None if vm.end is None else window.at(vm.end))
        for vm in VIRTUAL_MACHINES
    ]
    for poll in ticks(start, window.extracted_at, VGPU_POLL):
        for gpu, gpu_uuid_ in enumerate(gpu_uuids):
            active = [
                vm
                for vm, since, until in lifetimes
                if vm.gpu_index == gpu and since <= poll and (until is None or poll < until)
            ]
            common = {
                "host": VGPU_HOST,
                "sampled_at": iso_us(poll),
                "interval_seconds": VGPU_POLL.total_seconds(),
                "gpu_uuid": gpu_uuid_,
                "gpu_index": gpu,
                "gpu_name": A100_MODEL,
            }
            lines.append(
                json_line(
                    {
                        "record_type": "host_gpu",
                        **common,
                        "active_vgpu_count": len(active),
                        "null_reasons": {},
                        "error": None,
                    }
                )
            )
            vgpu_type = VGPU_GPU_TYPES[gpu]
            type_id, framebuffer_gib = VGPU_TYPES[vgpu_type]
            for vm in active:
                instance, vgpu_uuid = instances[vm.vm_id]
                busy = rng.random() < 0.3 * office_factor(poll)
                sm = round(rng.uniform(35, 97) if busy else rng.uniform(0, 6), 1)
                record = {
                    "record_type": "vgpu",
                    **common,
                    "vgpu_instance": instance,
                    "vgpu_uuid": vgpu_uuid,
                    "vm_id": vm.vm_id,
                    "vm_id_type": vm.vm_id_type,
                    "vgpu_type_id": type_id,
                    "vgpu_type_name": f"NVIDIA {vgpu_type}",
                    "fb_used_bytes": int(framebuffer_gib * 2**30 * rng.uniform(0.1, 0.85)),
                    "sm_util_percent": sm,
                    "mem_util_percent": round(sm * rng.uniform(0.3, 0.7), 1),
                    "enc_util_percent": 0.0,
                    "dec_util_percent": 0.0,
                    "util_sample_count": rng.randrange(300, 361),
                    "null_reasons": {},
                    "error": None,
                }
                lines.append(json_line(record))
    return file_text(lines)
