#!/usr/bin/env bash
# The NVML sampler against a real GPU (run on a GPU machine from the repository root; no
# setting of the GPU is changed). Needs python3 with pyarrow, numpy and PyTorch; the wheels in
# .whl/ (nvidia-ml-py, orjson, tzdata, rich, duckdb at the project's pins) are installed to
# /tmp/site first when present. Writes into $OUT (default /tmp/gpu-check):
#   smi.txt         nvidia-smi's view, the tools present, the Python packages
#   mig.txt         scripts/gpu_check/mig_read.py: MIG mode and the instance profiles offered
#   nvml-gpu.jsonl  what `gpuledger ingest nvml --live` sampled (its --output), under a load
#   ingest.txt      what that command printed: rounds, landed batches, counts
#   raw.tgz         the home's landed raw tables
set -u
out=${OUT:-/tmp/gpu-check}
mkdir -p "$out"
if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site
fi
export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$PWD PYTHONUNBUFFERED=1
{
    nvidia-smi
    nvidia-smi -q
    which dcgmi nv-hostengine dcgm-exporter
    python3 -c "import sys, pynvml, pyarrow, numpy, duckdb; print(sys.version, pyarrow.__version__, numpy.__version__, duckdb.__version__)"
} >"$out/smi.txt" 2>&1
timeout 60 python3 scripts/gpu_check/mig_read.py >"$out/mig.txt" 2>&1
home=/tmp/gpu-check-home
rm -rf "$home" "$out/nvml-gpu.jsonl"
python3 scripts/gpu_check/load.py 25 >"$out/load.txt" 2>&1 &
sleep 5
# 40 rounds a second apart: about 20 under the load, the rest after it; a batch every 10
timeout 120 python3 -m gpuledger.cli --home "$home" ingest nvml --live --interval 1 \
    --samples 40 --flush-every 10 --output "$out/nvml-gpu.jsonl" >"$out/ingest.txt" 2>&1
echo "ingest exit $?" >>"$out/ingest.txt"
wait
cat "$out/load.txt" >>"$out/ingest.txt"
tar czf "$out/raw.tgz" -C "$home" raw
cat "$out/smi.txt" "$out/mig.txt" "$out/ingest.txt"
head -c 3000 "$out/nvml-gpu.jsonl"
