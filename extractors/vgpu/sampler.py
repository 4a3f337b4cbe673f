"""Sample a vGPU host (hypervisor) through NVML into JSONL records (see parse.py for the format).

Each round polls every physical GPU: `nvmlDeviceGetActiveVgpus`, then per vGPU instance its
UUID, VM id (`nvmlVgpuInstanceGetVmID`: 0 domain id, 1 UUID), type and type name (the vGPU
profile, `GRID A100-1-10C`, `NVIDIA A100D-20C`), framebuffer in use, and the host-side
utilisation samples of `nvmlDeviceGetVgpuUtilization` since the previous poll. This is the
host view; guest (in-VM) evidence is never summed with it.
"""

from __future__ import annotations

import ctypes
import datetime as dt
from collections.abc import Callable
from typing import Any

import pynvml

from extractors.nvmlcalls import (
    NewSamples,
    NullReasons,
    Record,
    describe,
    is_hard,
    iso,
    read_every_gpu,
    utc_now,
)

VM_ID_TYPES = {pynvml.NVML_VGPU_VM_ID_DOMAIN_ID: "domain_id", pynvml.NVML_VGPU_VM_ID_UUID: "uuid"}
_UTIL_FIELDS = (
    ("sm_util_percent", "smUtil"),
    ("mem_util_percent", "memUtil"),
    ("enc_util_percent", "encUtil"),
    ("dec_util_percent", "decUtil"),
)


def fb_usage_bytes(vgpu_instance: int) -> int:
    """Framebuffer in use by a vGPU instance, in bytes, read into a 64-bit buffer.

    NVML declares `nvmlVgpuInstanceGetFbUsage(nvmlVgpuInstance_t, unsigned long long *)`;
    pynvml (12.560.30 and the pinned 13.615.71) passes a 32-bit `c_uint`, which truncates any
    usage of 4 GiB or more and lets the library write past the buffer. So the NVML function
    is called here with the declared type.
    """
    function = pynvml._nvmlGetFunctionPointer("nvmlVgpuInstanceGetFbUsage")
    usage = ctypes.c_ulonglong(0)
    status = function(pynvml._nvmlVgpuInstance_t(vgpu_instance), ctypes.byref(usage))
    pynvml._nvmlCheckReturn(status)
    return usage.value


class VgpuSampler:
    def __init__(
        self,
        *,
        host: str,
        interval_seconds: float,
        clock: Callable[[], dt.datetime] = utc_now,
    ) -> None:
        self._host = host
        self._interval = interval_seconds
        self._clock = clock
        self._known: dict[int, tuple[str, str | None]] = {}  # index -> (uuid, name)
        self._util_samples = NewSamples()  # per gpu uuid

    def reset_inventory(self) -> None:
        """Every round is complete in itself: nothing to describe again."""

    def sample_round(self) -> list[Record]:
        now = iso(self._clock())
        return read_every_gpu(
            lambda index, handle, uuid: self._read_gpu(index, handle, uuid, now),
            lambda index, err: [self._unreadable(index, now, err)],
            self._known,
        )

    def _read_gpu(self, index: int, handle: Any, uuid: str, now: str) -> list[Record]:
        notes = NullReasons()
        name = notes.read("gpu_name", pynvml.nvmlDeviceGetName, handle)
        self._known[index] = (uuid, name)
        instances = notes.read("active_vgpu_count", pynvml.nvmlDeviceGetActiveVgpus, handle)
        gpu = self._gpu(index, now, uuid, name)
        util, util_reason = self._utilization(handle, uuid) if instances else ({}, None)
        vgpus = [self._vgpu(instance, gpu, util, util_reason) for instance in instances or []]
        poll = {
            "record_type": "host_gpu",
            **gpu,
            "active_vgpu_count": len(instances) if instances is not None else None,
            "null_reasons": notes.reasons,
            "error": None,
        }
        return [poll, *vgpus]

    def _vgpu(
        self,
        instance: int,
        gpu: Record,
        util: dict[int, Record],
        util_reason: str | None,
    ) -> Record:
        record: Record = {"record_type": "vgpu", **gpu, "vgpu_instance": instance}
        try:
            vgpu_uuid = pynvml.nvmlVgpuInstanceGetUUID(instance)
        except pynvml.NVMLError as err:
            if is_hard(err):
                raise
            return record | {"vgpu_uuid": None, "null_reasons": {}, "error": describe(err)}
        notes = NullReasons()
        vm = notes.read("vm_id", pynvml.nvmlVgpuInstanceGetVmID, instance)
        type_id = notes.read("vgpu_type_id", pynvml.nvmlVgpuInstanceGetType, instance)
        type_name = None
        if type_id is not None:
            type_name = notes.read("vgpu_type_name", pynvml.nvmlVgpuTypeGetName, type_id)
        fb_used = notes.read("fb_used_bytes", fb_usage_bytes, instance)
        utilisation = util.get(instance)
        if utilisation is None:
            for field, _ in _UTIL_FIELDS:
                notes.note(field, util_reason or "no_sample_for_instance")
            utilisation = {field: None for field, _ in _UTIL_FIELDS} | {"util_sample_count": 0}
        return record | {
            "vgpu_uuid": vgpu_uuid,
            "vm_id": vm[0] if vm is not None else None,
            "vm_id_type": VM_ID_TYPES.get(vm[1], f"type_{vm[1]}") if vm is not None else None,
            "vgpu_type_id": type_id,
            "vgpu_type_name": type_name,
            "fb_used_bytes": fb_used,
            **utilisation,
            "null_reasons": notes.reasons,
            "error": None,
        }

    def _utilization(self, handle: Any, gpu_uuid: str) -> tuple[dict[int, Record], str | None]:
        """Mean host-side utilisation per vGPU instance over NVML's samples since last poll."""
        samples, why = self._util_samples.read(
            pynvml.nvmlDeviceGetVgpuUtilization, handle, gpu_uuid
        )
        grouped: dict[int, list[Any]] = {}
        for sample in samples:
            grouped.setdefault(sample.vgpuInstance, []).append(sample)
        means = {}
        for instance, group in grouped.items():
            means[instance] = {
                field: sum(getattr(s, attr).uiVal for s in group) / len(group)
                for field, attr in _UTIL_FIELDS
            } | {"util_sample_count": len(group)}
        return means, why

    def _gpu(self, index: int, now: str, uuid: str | None, name: str | None) -> Record:
        """The fields of one physical GPU at one poll, shared by its poll and vGPU records."""
        return {
            "host": self._host,
            "sampled_at": now,
            "interval_seconds": self._interval,
            "gpu_uuid": uuid,
            "gpu_index": index,
            "gpu_name": name,
        }

    def _unreadable(self, index: int, now: str, err: pynvml.NVMLError) -> Record:
        return {
            "record_type": "host_gpu",
            **self._gpu(index, now, *self._known.get(index, (None, None))),
            "active_vgpu_count": None,
            "null_reasons": {},
            "error": describe(err),
        }
