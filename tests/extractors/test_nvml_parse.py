"""The NVML JSONL file mode: the recorded sampler output lands; bad records are quarantined."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from extractors.nvml.parse import parse_nvml_jsonl
from extractors.nvml.records import DEVICES_TABLE, PROCESSES_TABLE, SAMPLES_TABLE
from extractors.rawstore import batch_files
from tests.conftest import FIXTURES, run_cli

RECORDED = FIXTURES / "nvml" / "gpu-node-07.jsonl"
LINES = RECORDED.read_text().splitlines()
SAMPLE = json.loads(LINES[1])  # the H100's first sample
PROCESS = json.loads(LINES[2])  # pid 4242
DEVICE = json.loads(LINES[5])  # the A100 with its four MIG devices


def test_recorded_file_parses_into_rows() -> None:
    result = parse_nvml_jsonl(RECORDED.read_text())
    assert result.records_read == 22
    assert result.rejected == []
    assert len(result.tables[DEVICES_TABLE]) == 6  # 2 GPUs + 4 MIG devices
    assert len(result.tables[SAMPLES_TABLE]) == 12
    assert len(result.tables[PROCESSES_TABLE]) == 8
    mig = next(d for d in result.tables[DEVICES_TABLE] if d.mig_profile == "2g.20gb")
    assert (mig.device_kind, mig.gpu_name, mig.gpu_instance_id) == (
        "mig",
        "NVIDIA A100-SXM4-80GB",
        5,
    )
    h100 = result.tables[SAMPLES_TABLE][0]
    assert (h100.power_mw, h100.sampled_at.isoformat()) == (612_345, "2026-10-05T12:00:00")
    lost = [s for s in result.tables[SAMPLES_TABLE] if s.error]
    assert len(lost) == 5 and all(s.memory_used_bytes is None for s in lost)


def test_recorded_file_lands_once(home: Path) -> None:
    first = run_cli(home, None, "ingest", "nvml", "--file", str(RECORDED))
    assert first.exit_code == 0
    assert "read 22, landed 22, quarantined 0" in first.stdout
    second = run_cli(home, None, "ingest", "nvml", "--file", str(RECORDED))
    assert "already landed" in second.stdout
    processes = pq.read_table(batch_files(home / "raw" / "nvml_processes")[0])
    owners = processes.select(["pid", "owner_kind", "slurm_job_id", "pod_uid"]).to_pylist()
    assert {o["pid"]: o["owner_kind"] for o in owners} == {
        4242: "k8s_pod",
        5151: "slurm_job",
        6000: "unresolved",
        7000: "slurm_job",
        7100: "k8s_pod",
    }


def _with(record: dict, **changes: object) -> str:
    return json.dumps(record | changes)


def _without(record: dict, key: str) -> str:
    return json.dumps({k: v for k, v in record.items() if k != key})


BAD = [
    ("invalid JSON", '{"record_type": "sample", "host": ', "line", "invalid JSON"),
    ("a JSON array", "[1, 2, 3]", "line", "expected a JSON object, got list"),
    ("unknown record type", _with(SAMPLE, record_type="reading"), "record_type", "'reading'"),
    ("no record type", _without(SAMPLE, "record_type"), "record_type", "missing"),
    ("negative memory", _with(SAMPLE, memory_used_bytes=-1), "memory_used_bytes", ">= 0"),
    ("memory as text", _with(SAMPLE, memory_used_bytes="1 GiB"), "memory_used_bytes", "integer"),
    (
        "utilization over 100",
        _with(SAMPLE, utilization_gpu_percent=140),
        "utilization_gpu_percent",
        "<= 100",
    ),
    ("zone-less time", _with(SAMPLE, sampled_at="2026-10-05T12:00:00"), "sampled_at", "no zone"),
    ("not a time", _with(SAMPLE, sampled_at="yesterday"), "sampled_at", "invalid ISO 8601"),
    ("no host", _without(SAMPLE, "host"), "host", "missing"),
    ("device kind", _with(SAMPLE, device_kind="vgpu"), "device_kind", "not one of gpu, mig"),
    ("no uuid, no error", _with(SAMPLE, device_uuid=None), "device_uuid", "missing"),
    ("bool as count", _with(SAMPLE, process_count=True), "process_count", "integer"),
    ("null reasons", _with(SAMPLE, null_reasons=["x"]), "null_reasons", "field -> reason"),
    ("pid zero", _with(PROCESS, pid=0), "pid", ">= 1"),
    (
        "negative process memory",
        _with(PROCESS, used_gpu_memory_bytes=-5),
        "used_gpu_memory_bytes",
        ">= 0",
    ),
    ("owner kind", _with(PROCESS, owner=PROCESS["owner"] | {"kind": "vm"}), "owner.kind", "'vm'"),
    (
        "pod without uid",
        _with(PROCESS, owner=PROCESS["owner"] | {"pod_uid": None}),
        "owner.pod_uid",
        "missing",
    ),
    ("owner missing", _without(PROCESS, "owner"), "owner", "missing"),
    (
        "MIG entry without uuid",
        _with(DEVICE, mig_devices=[DEVICE["mig_devices"][0], {"index": 1}]),
        "mig_devices[1].uuid",
        "missing",
    ),
    ("MIG list not a list", _with(DEVICE, mig_devices={"a": 1}), "mig_devices", "a list"),
    ("MIG mode 2", _with(DEVICE, mig_mode_current=2), "mig_mode_current", "<= 1"),
]


@pytest.mark.parametrize(("case", "line", "field", "reason"), BAD, ids=[b[0] for b in BAD])
def test_bad_record_is_quarantined_with_line_and_field(
    case: str, line: str, field: str, reason: str
) -> None:
    text = "\n".join([LINES[0], line, LINES[1]]) + "\n"
    result = parse_nvml_jsonl(text)
    assert result.records_read == 3
    (rejected,) = result.rejected
    assert (rejected.line, rejected.field) == (2, field)
    assert reason in rejected.reason
    assert rejected.raw == line
    assert len(result.tables[DEVICES_TABLE]) == 1 and len(result.tables[SAMPLES_TABLE]) == 1


def test_bad_records_land_in_quarantine_with_the_file(home: Path, tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        "\n".join([LINES[0], "not json", _with(SAMPLE, memory_used_bytes=-1), LINES[1], ""])
    )
    result = run_cli(home, None, "ingest", "nvml", "--file", str(path))
    assert result.exit_code == 0
    assert "read 4, landed 2, quarantined 2" in result.stdout
    assert f"quarantined {path}:2: field line: invalid JSON" in result.stdout
    assert f"quarantined {path}:3: field memory_used_bytes: must be >= 0, got -1" in result.stdout


def test_a_file_that_is_not_json_lines_is_an_error_naming_it(home: Path, tmp_path: Path) -> None:
    path = tmp_path / "nvidia-smi.csv"
    path.write_text("index, uuid, utilization.gpu [%]\n0, GPU-1, 87 %\n")
    result = run_cli(home, None, "ingest", "nvml", "--file", str(path))
    assert result.exit_code == 1
    assert f"{path}: line 1: not JSON Lines" in result.stderr
    # read piece by piece, the file is refused at its end: nothing landed, the raw store
    # holds nothing but the lock its landing took
    landed = home / "raw"
    assert not landed.exists() or [p.name for p in landed.iterdir()] == [".lock"]


def test_blank_lines_are_not_records() -> None:
    result = parse_nvml_jsonl("\n" + LINES[1] + "\n\n\r\n")
    assert (result.records_read, len(result.rejected)) == (1, 0)
    assert result.tables[SAMPLES_TABLE][0].source_line == 2


# --- the capture of a real GPU (an H200; fixtures/nvml/SOURCES.md) ------------------------

REAL = FIXTURES / "nvml" / "h200-real.jsonl"
H200_UUID = "GPU-081ea5c7-d333-96f2-9ff8-9ad4c8d25369"


def test_a_real_gpu_capture_parses_in_nvml_units() -> None:
    result = parse_nvml_jsonl(REAL.read_text())
    assert (result.records_read, result.rejected) == (71, [])
    devices = result.tables[DEVICES_TABLE]
    assert len(devices) == 4  # described again at the start of each of the four chunks
    assert {(d.device_uuid, d.gpu_name, d.device_kind) for d in devices} == {
        (H200_UUID, "NVIDIA H200", "gpu")
    }
    samples = result.tables[SAMPLES_TABLE]
    assert len(samples) == 40 and not any(s.error for s in samples)
    assert all(77_000 <= s.power_mw <= 346_000 for s in samples)  # milliwatts, idle to load
    energy = [s.energy_mj for s in samples]
    assert energy == sorted(energy) and energy[-1] - energy[0] == 9_311_930
    busy = [s.utilization_gpu_percent for s in samples if s.process_count]
    assert (len(busy), max(busy), sum(busy)) == (27, 68, 641)
    processes = result.tables[PROCESSES_TABLE]
    assert len(processes) == 27 and {(p.pid, p.owner_kind) for p in processes} == {(560, "other")}
    first = processes[0]
    assert first.sm_util_percent is None
    assert json.loads(first.null_reasons) == {"sm_util_percent": "not_found"}
    assert [p.sm_util_percent for p in processes[1:4]] == [21.0, 29.0, 21.0]


def test_a_real_gpu_capture_lands_whole(home: Path) -> None:
    landed = run_cli(home, None, "ingest", "nvml", "--file", str(REAL))
    assert landed.exit_code == 0
    assert "read 71, landed 71, quarantined 0" in landed.stdout
    assert "nvml_devices 4, nvml_processes 27, nvml_samples 40" in landed.stdout
