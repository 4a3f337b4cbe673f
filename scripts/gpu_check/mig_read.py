"""What NVML says of MIG on this machine, read only (no setting is changed): each GPU's
name, MIG mode (current, pending), and the GPU instance profiles the driver offers with
their slices and memory, as rows of the seeds/mig_profiles.csv layout where it can.

    python3 scripts/gpu_check/mig_read.py
"""

from __future__ import annotations

import pynvml

PROFILES = [name for name in dir(pynvml) if name.startswith("NVML_GPU_INSTANCE_PROFILE_")]


def main() -> None:
    pynvml.nvmlInit()
    print("driver", pynvml.nvmlSystemGetDriverVersion(), "nvml", pynvml.nvmlSystemGetNVMLVersion())
    for index in range(pynvml.nvmlDeviceGetCount()):
        handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        name = pynvml.nvmlDeviceGetName(handle)
        print(f"gpu {index}: {name} {pynvml.nvmlDeviceGetUUID(handle)}")
        try:
            print("  mig mode (current, pending):", pynvml.nvmlDeviceGetMigMode(handle))
        except pynvml.NVMLError as err:
            print("  mig mode:", type(err).__name__, err)
        try:
            print("  max MIG devices:", pynvml.nvmlDeviceGetMaxMigDeviceCount(handle))
        except pynvml.NVMLError as err:
            print("  max MIG devices:", type(err).__name__, err)
        print("  gpu_model,profile_id,slices,memory_mib,instance_count,copy_engines")
        for constant in sorted(PROFILES, key=lambda c: getattr(pynvml, c)):
            profile = getattr(pynvml, constant)
            if not isinstance(profile, int) or constant.endswith("_COUNT"):
                continue
            try:
                info = pynvml.nvmlDeviceGetGpuInstanceProfileInfo(handle, profile)
            except pynvml.NVMLError as err:
                print(f"  {constant}: {type(err).__name__} {err}")
                continue
            print(
                f"  {name},{constant},{info.sliceCount},{info.memorySizeMB},"
                f"{info.instanceCount},{info.copyEngineCount}"
            )
    pynvml.nvmlShutdown()


if __name__ == "__main__":
    main()
