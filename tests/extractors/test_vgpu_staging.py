"""vGPU staging: samples in ratios and bytes; assignment intervals from host polls."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from gpuledger.core.home import DEMO_POLICY_DIR
from gpuledger.core.warehouse import prepare, run_dbt
from tests.conftest import FIXTURES, run_cli, sql
from tests.fixtures.vgpu import host

RECORDED = FIXTURES / "vgpu" / "hv-03.jsonl"
T0 = dt.datetime(2026, 10, 6, 13, 0, tzinfo=dt.UTC)
GPU_T = "GPU-77777777-0000-4000-8000-000000000001"


def _poll(
    minute: float, present: list[str], *, error: str | None = None, listed: int | None = None
) -> list[dict]:
    """One poll of GPU_T on host hv-t: its host_gpu record and a vgpu record per present name."""
    at = (T0 + dt.timedelta(minutes=minute)).isoformat().replace("+00:00", "Z")
    gpu = {"host": "hv-t", "sampled_at": at, "interval_seconds": 60.0, "gpu_uuid": GPU_T,
           "gpu_index": 0, "gpu_name": "NVIDIA A100-SXM4-80GB"}  # fmt: skip
    count = None if error else (len(present) if listed is None else listed)
    poll = {"record_type": "host_gpu", **gpu, "active_vgpu_count": count, "error": error}
    vgpus = [
        {"record_type": "vgpu", **gpu, "vgpu_instance": ord(name), "vgpu_uuid": f"vgpu-{name}",
         "vm_id": f"vm-{name}", "vm_id_type": "uuid", "vgpu_type_name": "NVIDIA A100D-20C",
         "fb_used_bytes": 1024, "sm_util_percent": 10}
        for name in present
    ]  # fmt: skip
    return [poll, *vgpus]


TIMELINE = [
    *_poll(0, ["X"]),
    *_poll(1, ["X"]),
    *_poll(2, []),  # complete, X absent: the first interval ends
    *_poll(3, ["X"]),
    *_poll(4, [], error="gpu_is_lost: GPU is lost"),  # says nothing about X
    *_poll(5, ["X"]),
    *_poll(9, ["X"]),  # 4 minutes after the last sighting: a telemetry gap splits
    *_poll(10, ["X"], listed=2),  # Y's row is quarantined below: incomplete, still a sighting
    *_poll(11, ["Z"]),
    *_poll(11.5, []),  # an early poll ends Z before its next poll was due
]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("vgpu") / "home"
    timeline = tmp_path_factory.mktemp("files") / "hv-t.jsonl"
    lines = [json.dumps(r) for r in TIMELINE]
    bad_y = _poll(10, ["Y"])[1] | {"vm_id_type": "vm-name"}
    lines.insert(lines.index(json.dumps(_poll(11, ["Z"])[0])), json.dumps(bad_y))
    timeline.write_text("\n".join(lines) + "\n")
    for path in (RECORDED, timeline):
        result = run_cli(home, None, "ingest", "vgpu", "--file", str(path))
        assert result.exit_code == 0
    assert "quarantined 1" in result.stdout
    prepare(home, DEMO_POLICY_DIR)  # this source's staging models and what they read
    run_dbt(
        home, ["build", "--select", "+path:models/staging/vgpu", "--indirect-selection", "cautious"]
    )
    return home


def _at(minute: float) -> dt.datetime:
    return (T0 + dt.timedelta(minutes=minute)).replace(tzinfo=None)


def test_samples_in_ratios_bytes_and_profiles(built: Path) -> None:
    rows = sql(
        built,
        "select vm_id, vm_id_type, vgpu_profile, framebuffer_used_bytes, sm_active_ratio "
        "from staging.stg_vgpu__samples where node_name = 'hv-03' and sampled_at = "
        "(select min(sampled_at) from staging.stg_vgpu__samples) order by vgpu_instance_id",
    )
    assert rows == [
        (host.VM_A, "uuid", "A100D-40C", 20 * 1024**3, 0.5),
        ("7", "domain_id", "A100D-20C", 3 * 1024**3, 0.05),
        (host.VM_B, "uuid", "A100D-40C", 9 * 1024**3, None),
    ]


def test_recorded_host_assignments(built: Path) -> None:
    rows = sql(
        built,
        "select vgpu_uuid, gpu_uuid, vm_id, vgpu_profile, assignment_start_at, "
        "assignment_end_at, is_open, sighting_count from staging.stg_vgpu__assignments "
        "where node_name = 'hv-03' order by vgpu_uuid",
    )
    start = host.START.replace(tzinfo=None)
    seconds = dt.timedelta(seconds=1)
    assert rows == [
        # still present at the last poll: open, provisionally last sighting + one interval
        (
            host.VGPU_A,
            host.GPU0_UUID,
            host.VM_A,
            "A100D-40C",
            start,
            start + 90 * seconds,
            True,
            3,
        ),
        # missing from the second (complete) poll: ends there
        (
            host.VGPU_DOMAIN,
            host.GPU0_UUID,
            "7",
            "A100D-20C",
            start,
            start + 30 * seconds,
            False,
            1,
        ),
        # its GPU was lost at the third poll, which says nothing: open, last sighting + 30 s
        (
            host.VGPU_B,
            host.GPU1_UUID,
            host.VM_B,
            "A100D-40C",
            start,
            start + 60 * seconds,
            True,
            2,
        ),
    ]


def test_absence_gaps_and_incomplete_polls(built: Path) -> None:
    rows = sql(
        built,
        "select vgpu_uuid, assignment_start_at, assignment_end_at, is_open, sighting_count "
        "from staging.stg_vgpu__assignments where node_name = 'hv-t' "
        "order by vgpu_uuid, assignment_start_at",
    )
    assert rows == [
        ("vgpu-X", _at(0), _at(2), False, 2),  # absent from the complete poll at 13:02
        ("vgpu-X", _at(3), _at(6), False, 2),  # across the error poll; then a 4-minute gap
        ("vgpu-X", _at(9), _at(11), False, 2),  # the incomplete 13:10 poll still sighted it
        ("vgpu-Z", _at(11), _at(11.5), False, 1),  # the next complete poll came early
    ]
