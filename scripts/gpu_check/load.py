"""Keep the GPU busy for SECONDS with bf16 matrix products (PyTorch, as the device image has it),
so the sampler sees utilization, power and a compute process of its own.

    python3 scripts/gpu_check/load.py SECONDS
"""

from __future__ import annotations

import sys
import time

import torch


def main(seconds: float) -> None:
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    products = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for _ in range(50):
            a @ b
        torch.cuda.synchronize()
        products += 50
        time.sleep(0.2)  # leave idle gaps, so utilization is below 100%
    print(f"load: {products} products of 8192^3 in {seconds:g} s", flush=True)


if __name__ == "__main__":
    main(float(sys.argv[1]))
