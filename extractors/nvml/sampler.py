"""Sample the node's GPUs through NVML (pynvml) into JSONL records (see parse.py for the format).

Each round reads every GPU: its inventory (emitted when it changes, and again at the start of
every landed chunk so each batch describes its devices), one `sample` per GPU and per MIG
device, and one `process` per compute process with its owner resolved from
`<proc_root>/<pid>/cgroup`. A value NVML cannot give is null with a reason; a GPU that fails
hard (GPU_IS_LOST) yields an error sample for it and each of its known MIG devices, and the
round goes on with the other GPUs.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pynvml

from extractors.nvml.owner import read_owner
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

_NOT_AVAILABLE_U32 = 0xFFFFFFFF  # NVML's "no GPU/compute instance" (not in MIG mode)
_MIG_PROFILE = re.compile(r"\bMIG\s+((?:\d+c\.)?\d+g\.\d+gb(?:\+\w+)?)")


@dataclass(frozen=True)
class _Mig:
    handle: Any
    uuid: str
    memory: Any  # NVML's memory info of the MIG device this round, None if unreadable
    record: Record  # the `mig_devices` entry of the GPU's device record


@dataclass(frozen=True)
class _Known:
    """What a GPU index was the last time it could be read (to name it when it is lost)."""

    uuid: str
    migs: tuple[tuple[str, int | None, int | None], ...]  # (uuid, gpu instance, compute instance)


def mig_profile(device_name: str | None) -> str | None:
    """`NVIDIA A100-SXM4-80GB MIG 3g.40gb` -> `3g.40gb`; `... MIG 1c.3g.40gb` -> `1c.3g.40gb`."""
    match = _MIG_PROFILE.search(device_name or "")
    return match.group(1) if match else None


class NvmlSampler:
    def __init__(
        self,
        *,
        host: str,
        proc_root: Path,
        interval_seconds: float,
        clock: Callable[[], dt.datetime] = utc_now,
    ) -> None:
        self._host = host
        self._proc_root = proc_root
        self._interval = interval_seconds
        self._clock = clock
        self._known: dict[int, _Known] = {}
        self._emitted: dict[int, str] = {}  # gpu index -> fingerprint of its last device record
        self._process_samples = NewSamples()  # per device uuid

    def reset_inventory(self) -> None:
        """Emit every device record again in the next round (a new chunk starts)."""
        self._emitted.clear()

    def sample_round(self) -> list[Record]:
        now = iso(self._clock())
        return read_every_gpu(
            lambda index, handle, uuid: self._read_gpu(index, handle, uuid, now),
            lambda index, err: self._lost(index, now, err),
            self._known,
        )

    # --- one GPU ---------------------------------------------------------------------------

    def _read_gpu(self, index: int, handle: Any, uuid: str, now: str) -> list[Record]:
        notes = NullReasons()
        name = notes.read("name", pynvml.nvmlDeviceGetName, handle)
        memory = notes.read("memory_total_bytes", pynvml.nvmlDeviceGetMemoryInfo, handle)
        mode = notes.read("mig_mode", pynvml.nvmlDeviceGetMigMode, handle)
        current, pending = mode if mode is not None else (None, None)
        migs = self._mig_devices(handle) if current == pynvml.NVML_DEVICE_MIG_ENABLE else []
        self._known[index] = _Known(
            uuid=uuid,
            migs=tuple(
                (m.uuid, m.record["gpu_instance_id"], m.record["compute_instance_id"]) for m in migs
            ),
        )
        records = self._inventory(
            index,
            {
                "record_type": "device",
                "host": self._host,
                "observed_at": now,
                "uuid": uuid,
                "index": index,
                "name": name,
                "memory_total_bytes": memory.total if memory is not None else None,
                "mig_mode_current": current,
                "mig_mode_pending": pending,
                "mig_devices": [m.record for m in migs],
                "null_reasons": notes.reasons,
                "error": None,
            },
        )
        device = {"device_kind": "gpu", "device_uuid": uuid, "gpu_uuid": uuid, "gpu_index": index}
        records += self._sample(
            handle,
            device | {"gpu_instance_id": None, "compute_instance_id": None},
            now,
            memory=(memory, notes.reasons.get("memory_total_bytes")),
            list_processes=not migs,
        )
        for mig in migs:
            records += self._sample(
                mig.handle,
                device
                | {
                    "device_kind": "mig",
                    "device_uuid": mig.uuid,
                    "gpu_instance_id": mig.record["gpu_instance_id"],
                    "compute_instance_id": mig.record["compute_instance_id"],
                },
                now,
                memory=(mig.memory, mig.record["null_reasons"].get("memory_total_bytes")),
                list_processes=True,
            )
        return records

    def _inventory(self, index: int, device: Record) -> list[Record]:
        fingerprint = json.dumps({k: v for k, v in device.items() if k != "observed_at"})
        if self._emitted.get(index) == fingerprint:
            return []
        self._emitted[index] = fingerprint
        return [device]

    def _mig_devices(self, handle: Any) -> list[_Mig]:
        migs = []
        for slot in range(pynvml.nvmlDeviceGetMaxMigDeviceCount(handle)):
            try:
                mig = pynvml.nvmlDeviceGetMigDeviceHandleByIndex(handle, slot)
                uuid = pynvml.nvmlDeviceGetUUID(mig)
            except pynvml.NVMLError as err:
                if is_hard(err):
                    raise
                continue  # an empty slot (NotFound), or an instance destroyed meanwhile
            notes = NullReasons()
            name = notes.read("name", pynvml.nvmlDeviceGetName, mig)
            memory = notes.read("memory_total_bytes", pynvml.nvmlDeviceGetMemoryInfo, mig)
            profile = mig_profile(name)
            if profile is None:
                notes.note("profile", "no MIG profile in the device name")
            record = {
                "uuid": uuid,
                "index": slot,
                "name": name,
                "profile": profile,
                "gpu_instance_id": notes.read(
                    "gpu_instance_id", pynvml.nvmlDeviceGetGpuInstanceId, mig
                ),
                "compute_instance_id": notes.read(
                    "compute_instance_id", pynvml.nvmlDeviceGetComputeInstanceId, mig
                ),
                "memory_total_bytes": memory.total if memory is not None else None,
                "null_reasons": notes.reasons,
            }
            migs.append(_Mig(handle=mig, uuid=uuid, memory=memory, record=record))
        return migs

    # --- samples and processes -------------------------------------------------------------

    def _sample(
        self,
        handle: Any,
        device: Record,
        now: str,
        *,
        memory: tuple[Any, str | None],
        list_processes: bool,
    ) -> list[Record]:
        notes = NullReasons()
        info, memory_reason = memory
        if info is None:
            notes.note("memory_used_bytes", memory_reason or "not_read")
        util = notes.read("utilization_gpu_percent", pynvml.nvmlDeviceGetUtilizationRates, handle)
        if util is None:
            notes.note("utilization_memory_percent", notes.reasons["utilization_gpu_percent"])
        power = notes.read("power_mw", pynvml.nvmlDeviceGetPowerUsage, handle)
        energy = notes.read("energy_mj", pynvml.nvmlDeviceGetTotalEnergyConsumption, handle)
        processes: list[Record] = []
        if list_processes:
            processes = self._processes(handle, device, now, notes)
        else:
            notes.note("process_count", "listed per MIG device")
        sample = {
            "record_type": "sample",
            "host": self._host,
            "sampled_at": now,
            "interval_seconds": self._interval,
            **device,
            "utilization_gpu_percent": util.gpu if util is not None else None,
            "utilization_memory_percent": util.memory if util is not None else None,
            "memory_used_bytes": info.used if info is not None else None,
            "memory_total_bytes": info.total if info is not None else None,
            "power_mw": power,
            "energy_mj": energy,
            "process_count": len(processes) if "process_count" not in notes.reasons else None,
            "null_reasons": notes.reasons,
            "error": None,
        }
        return [sample, *processes]

    def _processes(self, handle: Any, device: Record, now: str, notes: NullReasons) -> list[Record]:
        running = notes.read("process_count", pynvml.nvmlDeviceGetComputeRunningProcesses, handle)
        if running is None and notes.reasons.get("process_count") == "not_found":
            del notes.reasons["process_count"]  # NotFound: no processes, no rows
            running = []
        if not running:
            return []
        util_by_pid, util_reason = self._process_utilization(handle, device["device_uuid"])
        records = []
        for proc in running:
            why: dict[str, str] = {}
            if proc.usedGpuMemory is None:
                why["used_gpu_memory_bytes"] = "not_available"
            sm_util = util_by_pid.get(proc.pid)
            if sm_util is None:
                why["sm_util_percent"] = util_reason or "no_sample_for_pid"
            owner = read_owner(self._proc_root, proc.pid)
            records.append(
                {
                    "record_type": "process",
                    "host": self._host,
                    "sampled_at": now,
                    "interval_seconds": self._interval,
                    "pid": proc.pid,
                    "gpu_uuid": device["gpu_uuid"],
                    "device_uuid": device["device_uuid"],
                    "gpu_index": device["gpu_index"],
                    "gpu_instance_id": _instance_id(proc.gpuInstanceId, device["gpu_instance_id"]),
                    "compute_instance_id": _instance_id(
                        proc.computeInstanceId, device["compute_instance_id"]
                    ),
                    "used_gpu_memory_bytes": proc.usedGpuMemory,
                    "sm_util_percent": sm_util,
                    "null_reasons": why,
                    "owner": {
                        "cgroup_path": owner.cgroup_path,
                        "kind": owner.kind,
                        "pod_uid": owner.pod_uid,
                        "container_id": owner.container_id,
                        "slurm_job_id": owner.slurm_job_id,
                        "slurm_step_id": owner.slurm_step_id,
                        "error": owner.error,
                    },
                }
            )
        return records

    def _process_utilization(self, handle: Any, key: str) -> tuple[dict[int, float], str | None]:
        """Mean SM utilisation per PID over the samples NVML has since the last round."""
        samples, why = self._process_samples.read(
            pynvml.nvmlDeviceGetProcessUtilization, handle, key
        )
        by_pid: dict[int, list[int]] = {}
        for sample in samples:
            by_pid.setdefault(sample.pid, []).append(sample.smUtil)
        return {pid: sum(v) / len(v) for pid, v in by_pid.items()}, why

    # --- a GPU that cannot be read ---------------------------------------------------------

    def _lost(self, index: int, now: str, err: pynvml.NVMLError) -> list[Record]:
        """An error sample for the GPU and each MIG device it had when last read."""
        self._emitted.pop(index, None)  # describe it again once it comes back
        known = self._known.get(index)
        gpu_uuid = known.uuid if known else None
        devices = [("gpu", gpu_uuid, None, None)]
        devices += [("mig", uuid, gi, ci) for uuid, gi, ci in (known.migs if known else ())]
        return [
            {
                "record_type": "sample",
                "host": self._host,
                "sampled_at": now,
                "interval_seconds": self._interval,
                "device_kind": kind,
                "device_uuid": uuid,
                "gpu_uuid": gpu_uuid,
                "gpu_index": index,
                "gpu_instance_id": gi,
                "compute_instance_id": ci,
                "utilization_gpu_percent": None,
                "utilization_memory_percent": None,
                "memory_used_bytes": None,
                "memory_total_bytes": None,
                "power_mw": None,
                "energy_mj": None,
                "process_count": None,
                "null_reasons": {},
                "error": describe(err),
            }
            for kind, uuid, gi, ci in devices
        ]


def _instance_id(value: int | None, device_value: int | None) -> int | None:
    """A process's GPU/compute instance id; NVML's not-available marker gives the device's."""
    return device_value if value is None or value >= _NOT_AVAILABLE_U32 else value
