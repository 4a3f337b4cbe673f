"""The vGPU host sampler against a fake hypervisor NVML (faked at the pynvml call boundary)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pynvml
import pytest

from extractors.rawstore import batch_files
from tests.conftest import FIXTURES, run_cli
from tests.fixtures.nvml.fake_nvml import FakeGpu, FakeNvml, GiB
from tests.fixtures.vgpu import host

RECORDED = FIXTURES / "vgpu" / "hv-03.jsonl"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeNvml:
    hypervisor = host.host()
    hypervisor.install(monkeypatch)
    return hypervisor


@pytest.fixture
def polls(fake: FakeNvml) -> list[list[dict]]:
    sampler = host.sampler()
    return [sampler.sample_round() for _ in host.CLOCK]


def _vgpus(records: list[dict]) -> dict[str, dict]:
    return {r["vgpu_uuid"]: r for r in records if r["record_type"] == "vgpu"}


def test_the_sampler_writes_the_recorded_fixture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = host.record(tmp_path / "out.jsonl", monkeypatch)
    assert written.read_text() == RECORDED.read_text()


def test_two_vms_on_one_a100_and_one_on_the_other(polls: list[list[dict]]) -> None:
    vgpus = _vgpus(polls[0])
    assert {v["gpu_uuid"] for v in vgpus.values()} == {host.GPU0_UUID, host.GPU1_UUID}
    a, domain, b = vgpus[host.VGPU_A], vgpus[host.VGPU_DOMAIN], vgpus[host.VGPU_B]
    assert (a["gpu_uuid"], a["vm_id"], a["vm_id_type"]) == (host.GPU0_UUID, host.VM_A, "uuid")
    assert (domain["gpu_uuid"], domain["vm_id"], domain["vm_id_type"]) == (
        host.GPU0_UUID,
        "7",
        "domain_id",
    )
    assert (b["gpu_uuid"], b["vm_id"]) == (host.GPU1_UUID, host.VM_B)
    assert (a["vgpu_type_id"], a["vgpu_type_name"]) == (560, "NVIDIA A100D-40C")
    assert domain["vgpu_type_name"] == "NVIDIA A100D-20C"
    gpus = [r for r in polls[0] if r["record_type"] == "host_gpu"]
    assert [(g["gpu_uuid"], g["active_vgpu_count"]) for g in gpus] == [
        (host.GPU0_UUID, 2),
        (host.GPU1_UUID, 1),
    ]


def test_framebuffer_is_read_in_64_bits(fake: FakeNvml, polls: list[list[dict]]) -> None:
    assert _vgpus(polls[0])[host.VGPU_A]["fb_used_bytes"] == 20 * GiB  # > 4 GiB, not truncated
    assert set(fake.fb_buffer_sizes) == {8}


def test_utilization_is_the_mean_of_the_samples_since_the_last_poll(
    polls: list[list[dict]],
) -> None:
    a = _vgpus(polls[0])[host.VGPU_A]
    assert (a["sm_util_percent"], a["mem_util_percent"], a["util_sample_count"]) == (50.0, 25.0, 2)
    b = _vgpus(polls[0])[host.VGPU_B]
    assert b["sm_util_percent"] is None
    assert b["null_reasons"]["sm_util_percent"] == "no_sample_for_instance"


def test_a_released_vgpu_is_absent_from_later_polls(polls: list[list[dict]]) -> None:
    assert host.VGPU_DOMAIN in _vgpus(polls[0])
    assert set(_vgpus(polls[1])) == {host.VGPU_A, host.VGPU_B}


def test_a_lost_gpu_is_an_error_poll_and_the_other_goes_on(polls: list[list[dict]]) -> None:
    third = polls[2]
    gpus = {r["gpu_uuid"]: r for r in third if r["record_type"] == "host_gpu"}
    assert gpus[host.GPU1_UUID]["error"] == "gpu_is_lost: GPU is lost"
    assert gpus[host.GPU1_UUID]["active_vgpu_count"] is None
    assert set(_vgpus(third)) == {host.VGPU_A}


def test_a_gpu_that_is_not_in_vgpu_host_mode_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    bare_metal = FakeGpu(uuid="GPU-x", name="NVIDIA H100 80GB HBM3", memory_total=1, memory_used=0)
    FakeNvml([bare_metal]).install(monkeypatch)
    (poll,) = host.sampler().sample_round()
    assert poll["active_vgpu_count"] is None
    assert poll["null_reasons"] == {"active_vgpu_count": "not_supported"}


def test_an_instance_gone_between_calls_is_an_error_row(
    fake: FakeNvml, monkeypatch: pytest.MonkeyPatch
) -> None:
    uuid_of = pynvml.nvmlVgpuInstanceGetUUID

    def vanishing(vgpuInstance: int) -> str:
        if vgpuInstance == 11:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_FOUND)
        return uuid_of(vgpuInstance)

    monkeypatch.setattr(pynvml, "nvmlVgpuInstanceGetUUID", vanishing)
    records = host.sampler().sample_round()
    (gone,) = [r for r in records if r.get("vgpu_instance") == 11]
    assert (gone["vgpu_uuid"], gone["error"]) == (None, "not_found: Not Found")


def test_live_polls_and_lands(fake: FakeNvml, home: Path) -> None:
    result = run_cli(
        home,
        None,
        *("ingest", "vgpu", "--live", "--interval", "0.01", "--samples", "3", "--host", "hv-03"),
    )
    assert result.exit_code == 0, result.stderr
    assert "read 12, landed 12, quarantined 0" in result.stdout
    samples = [
        row
        for path in batch_files(home / "raw" / "vgpu_samples")
        for row in pq.read_table(path).to_pylist()
    ]
    assert len(samples) == 6
    assert {s["host"] for s in samples} == {"hv-03"}
