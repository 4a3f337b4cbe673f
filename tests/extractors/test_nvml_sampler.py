"""The NVML sampler against a fake NVML (faked at the pynvml call boundary) and a fake /proc."""

from __future__ import annotations

import datetime as dt
import fcntl
from pathlib import Path

import pyarrow.parquet as pq
import pynvml
import pytest

from extractors.rawstore import batch_manifest
from tests.conftest import FIXTURES, run_cli
from tests.fixtures.nvml import node
from tests.fixtures.nvml.fake_nvml import GiB

RECORDED = FIXTURES / "nvml" / "gpu-node-07.jsonl"


@pytest.fixture
def proc(tmp_path: Path) -> Path:
    return node.write_proc(tmp_path / "proc")


@pytest.fixture
def rounds(monkeypatch: pytest.MonkeyPatch, proc: Path) -> list[list[dict]]:
    node.node().install(monkeypatch)
    sampler = node.sampler(proc)
    return [sampler.sample_round() for _ in node.CLOCK]


def _of(records: list[dict], record_type: str, **match: object) -> list[dict]:
    return [
        r
        for r in records
        if r["record_type"] == record_type and all(r.get(k) == v for k, v in match.items())
    ]


def test_the_sampler_writes_the_recorded_fixture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = node.record(tmp_path / "out.jsonl", tmp_path / "proc", monkeypatch)
    assert written.read_text() == RECORDED.read_text()


def test_inventory_of_both_gpus_and_the_mig_instances(rounds: list[list[dict]]) -> None:
    devices = _of(rounds[0], "device")
    assert [d["uuid"] for d in devices] == [node.H100_UUID, node.A100_UUID]
    h100, a100 = devices
    assert (h100["mig_mode_current"], h100["mig_devices"]) == (0, [])
    assert (a100["mig_mode_current"], a100["mig_mode_pending"]) == (1, 1)
    migs = [
        (m["profile"], m["gpu_instance_id"], m["compute_instance_id"], m["uuid"])
        for m in a100["mig_devices"]
    ]
    assert migs == [
        ("3g.40gb", 1, 0, node.MIG_3G),
        ("2g.20gb", 5, 0, node.MIG_2G),
        ("1g.10gb", 13, 0, node.MIG_1G_A),
        ("1g.10gb", 14, 0, node.MIG_1G_B),
    ]
    assert a100["mig_devices"][0]["memory_total_bytes"] == 40448 * 1024**2
    assert _of(rounds[1], "device") == []  # unchanged inventory is not repeated within a chunk


def test_whole_gpu_sample_in_nvml_units(rounds: list[list[dict]]) -> None:
    (sample,) = _of(rounds[0], "sample", device_uuid=node.H100_UUID)
    assert sample["utilization_gpu_percent"] == 87
    assert sample["memory_used_bytes"] == 49 * GiB
    assert sample["power_mw"] == 612_345  # milliwatts, as NVML reports them
    assert sample["energy_mj"] == 9_876_543_210
    assert sample["process_count"] == 3
    assert sample["null_reasons"] == {} and sample["error"] is None


def test_utilization_on_mig_is_null_with_the_reason(rounds: list[list[dict]]) -> None:
    migs = _of(rounds[0], "sample", device_kind="mig")
    assert len(migs) == 4
    for mig in migs:
        assert mig["utilization_gpu_percent"] is None
        assert mig["null_reasons"]["utilization_gpu_percent"] == "not_supported"
        assert mig["null_reasons"]["power_mw"] == "not_supported"
        assert mig["memory_used_bytes"] is not None
    (parent,) = _of(rounds[0], "sample", device_uuid=node.A100_UUID)
    assert parent["power_mw"] == 301_000  # power belongs to the parent GPU
    assert parent["process_count"] is None
    assert parent["null_reasons"]["process_count"] == "listed per MIG device"


def test_process_owners_from_the_fake_proc(rounds: list[list[dict]]) -> None:
    owners = {p["pid"]: p["owner"] for p in _of(rounds[0], "process")}
    assert set(owners) == {4242, 5151, 6000, 7000, 7100}
    assert (owners[4242]["kind"], owners[4242]["pod_uid"], owners[4242]["container_id"]) == (
        "k8s_pod",
        node.POD_UID,
        node.CONTAINER_ID,
    )
    assert (owners[5151]["kind"], owners[5151]["slurm_job_id"]) == ("slurm_job", "4824887")
    assert (owners[7000]["slurm_job_id"], owners[7000]["slurm_step_id"]) == ("1320003", "batch")
    assert (owners[7100]["pod_uid"], owners[7100]["container_id"]) == (
        node.POD2_UID,
        node.CONTAINER2_ID,
    )
    assert owners[6000]["kind"] == "unresolved"
    assert "No such file" in owners[6000]["error"]


def test_processes_carry_device_instance_memory_and_utilization(rounds: list[list[dict]]) -> None:
    by_pid = {p["pid"]: p for p in _of(rounds[0], "process")}
    assert by_pid[4242]["used_gpu_memory_bytes"] == 40 * GiB
    assert by_pid[4242]["sm_util_percent"] == 75.0  # mean of the samples NVML held
    assert by_pid[4242]["gpu_instance_id"] is None  # NVML's 0xFFFFFFFF: not a MIG process
    assert by_pid[6000]["used_gpu_memory_bytes"] is None
    assert by_pid[6000]["null_reasons"]["used_gpu_memory_bytes"] == "not_available"
    on_mig = by_pid[7000]
    assert (on_mig["device_uuid"], on_mig["gpu_uuid"]) == (node.MIG_3G, node.A100_UUID)
    assert (on_mig["gpu_instance_id"], on_mig["compute_instance_id"]) == (1, 0)
    assert on_mig["null_reasons"]["sm_util_percent"] == "not_supported"


def test_not_found_processes_give_no_rows_and_no_error(rounds: list[list[dict]]) -> None:
    (sample,) = _of(rounds[0], "sample", device_uuid=node.MIG_1G_A)
    assert sample["process_count"] == 0
    assert "process_count" not in sample["null_reasons"]
    assert _of(rounds[0], "process", device_uuid=node.MIG_1G_A) == []
    # per-process utilisation with no new samples (NotFound) leaves the rows, util null
    second = {p["pid"]: p for p in _of(rounds[1], "process")}
    assert set(second) == {4242, 5151, 6000}
    assert second[4242]["sm_util_percent"] is None
    assert second[4242]["null_reasons"]["sm_util_percent"] == "not_found"


def test_a_gpu_lost_mid_run_is_an_error_sample_for_it_and_its_mig_devices(
    rounds: list[list[dict]],
) -> None:
    lost = [s for s in _of(rounds[1], "sample") if s["error"]]
    assert {s["device_uuid"] for s in lost} == {
        node.A100_UUID,
        node.MIG_3G,
        node.MIG_2G,
        node.MIG_1G_A,
        node.MIG_1G_B,
    }
    assert all(s["error"] == "gpu_is_lost: GPU is lost" for s in lost)
    assert all(s["memory_used_bytes"] is None and s["gpu_index"] == 1 for s in lost)
    (h100,) = _of(rounds[1], "sample", device_uuid=node.H100_UUID)
    assert h100["error"] is None and h100["utilization_gpu_percent"] == 87


def test_a_lost_gpu_that_returns_is_described_again(
    monkeypatch: pytest.MonkeyPatch, proc: Path
) -> None:
    fake = node.node()
    fake.install(monkeypatch)
    sampler = node.sampler(proc, (*node.CLOCK, node.CLOCK[1] + dt.timedelta(seconds=10)))
    sampler.sample_round()
    sampler.sample_round()  # the A100 is lost
    fake.gpus[1].lost_from_round = None
    third = sampler.sample_round()
    assert [d["uuid"] for d in _of(third, "device")] == [node.A100_UUID]


def test_device_count_failure_marks_every_known_gpu(
    monkeypatch: pytest.MonkeyPatch, proc: Path
) -> None:
    node.node().install(monkeypatch)
    sampler = node.sampler(proc)
    sampler.sample_round()

    def broken_count() -> int:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_UNKNOWN)

    monkeypatch.setattr(pynvml, "nvmlDeviceGetCount", broken_count)
    records = sampler.sample_round()
    assert len(records) == 6  # 2 GPUs + 4 MIG devices, all error samples
    assert {r["error"] for r in records} == {"unknown: Unknown Error"}


def test_an_old_driver_without_the_versioned_call_is_a_null_reason(
    monkeypatch: pytest.MonkeyPatch, proc: Path
) -> None:
    node.node().install(monkeypatch)

    def mismatch(handle: object) -> list:
        raise pynvml.NVMLLibraryMismatchError("Unversioned function called ...")

    monkeypatch.setattr(pynvml, "nvmlDeviceGetComputeRunningProcesses", mismatch)
    records = node.sampler(proc).sample_round()
    (h100,) = _of(records, "sample", device_uuid=node.H100_UUID)
    assert h100["process_count"] is None
    assert h100["null_reasons"]["process_count"] == "nvml_library_mismatch"


# --- the live command ---------------------------------------------------------------------


def _rows(home: Path, table: str) -> list[dict]:
    rows = []
    for path in sorted((home / "raw" / table).glob("*.parquet")):
        rows.extend(pq.read_table(path).to_pylist())
    return rows


def test_live_lands_the_rounds_and_keeps_the_output(
    home: Path, tmp_path: Path, proc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    node.node().install(monkeypatch)
    output = tmp_path / "kept.jsonl"
    result = run_cli(
        home,
        None,
        *("ingest", "nvml", "--live", "--interval", "0.01", "--samples", "2"),
        *("--output", str(output), "--proc-root", str(proc), "--host", "gpu-node-07"),
    )
    assert result.exit_code == 0, result.stderr
    assert "read 22, landed 22, quarantined 0" in result.stdout
    assert len(output.read_text().splitlines()) == 22
    assert len(_rows(home, "nvml_samples")) == 12
    assert {r["host"] for r in _rows(home, "nvml_processes")} == {"gpu-node-07"}
    assert list((home / "state" / "nvml" / "spool").iterdir()) == []
    # the kept file lands too; staging dedupes the rounds it repeats (test_nvml_staging)
    again = run_cli(home, None, "ingest", "nvml", "--file", str(output))
    assert again.exit_code == 0 and "read 22, landed 22" in again.stdout


def test_live_flushes_a_batch_every_n_rounds_with_progress(
    home: Path, proc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    node.node().install(monkeypatch)
    result = run_cli(
        home,
        None,
        *("ingest", "nvml", "--live", "--interval", "0.01", "--samples", "3"),
        *("--flush-every", "2", "--proc-root", str(proc)),
    )
    assert result.exit_code == 0, result.stderr
    assert "nvml: 2 rounds sampled; batch" in result.stderr
    assert len(batch_manifest(home)) == 2
    # each batch describes its devices: the second one repeats the (readable) inventory
    devices = _rows(home, "nvml_devices")
    assert sorted({r["batch_id"] for r in devices}) == sorted(
        b.batch_id for b in batch_manifest(home)
    )


def test_live_lands_a_chunk_left_by_a_crashed_run_first(
    home: Path, proc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spool = home / "state" / "nvml" / "spool"
    spool.mkdir(parents=True)
    (spool / "gpu-node-07-crashed.jsonl").write_bytes(RECORDED.read_bytes())
    node.node().install(monkeypatch)
    result = run_cli(
        home, None, "ingest", "nvml", "--live", "--samples", "1", "--proc-root", str(proc)
    )
    assert result.exit_code == 0, result.stderr
    assert "landed 1 chunk(s) left by an earlier run" in result.stderr
    assert list(spool.iterdir()) == []
    # the recovered chunk is the same content as the recorded file: landing it is a no-op
    again = run_cli(home, None, "ingest", "nvml", "--file", str(RECORDED))
    assert "already landed" in again.stdout


def test_interrupting_live_lands_what_was_sampled(
    home: Path, proc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = node.node()
    fake.install(monkeypatch)
    count = pynvml.nvmlDeviceGetCount

    def interrupted_on_third_round() -> int:
        if fake.rounds == 2:
            raise KeyboardInterrupt
        return count()

    monkeypatch.setattr(pynvml, "nvmlDeviceGetCount", interrupted_on_third_round)
    result = run_cli(
        home, None, "ingest", "nvml", "--live", "--interval", "0.01", "--proc-root", str(proc)
    )
    assert result.exit_code == 0, result.stderr
    assert "interrupted after 2 rounds" in result.stderr
    assert "read 22, landed 22" in result.stdout


def test_one_live_sampler_per_home(home: Path, proc: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    node.node().install(monkeypatch)
    state = home / "state" / "nvml"
    state.mkdir(parents=True)
    with (state / "sampler.lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        result = run_cli(home, None, "ingest", "nvml", "--live", "--samples", "1")
    assert result.exit_code == 1
    assert "another nvml sampler is running" in result.stderr


def test_live_without_nvml_is_a_message_not_a_traceback(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_library() -> None:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_LIBRARY_NOT_FOUND)

    monkeypatch.setattr(pynvml, "nvmlInit", no_library)
    result = run_cli(home, None, "ingest", "nvml", "--live", "--samples", "1")
    assert result.exit_code == 1
    assert "NVML is not available on this machine" in result.stderr
    assert not (home / "raw").exists()


def test_live_options_are_refused_with_file(home: Path) -> None:
    result = run_cli(home, None, "ingest", "nvml", "--file", str(RECORDED), "--samples", "3")
    assert result.exit_code == 1
    assert "--samples: only with --live" in result.stderr
