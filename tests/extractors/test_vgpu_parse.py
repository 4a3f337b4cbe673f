"""The vGPU JSONL file mode: the recorded host polls land; bad records are quarantined."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from extractors.vgpu.parse import parse_vgpu_jsonl
from extractors.vgpu.records import HOSTS_TABLE, SAMPLES_TABLE
from tests.conftest import FIXTURES, run_cli
from tests.fixtures.vgpu import host

RECORDED = FIXTURES / "vgpu" / "hv-03.jsonl"
LINES = RECORDED.read_text().splitlines()
POLL = json.loads(LINES[0])
VGPU = json.loads(LINES[1])


def test_recorded_polls_parse() -> None:
    result = parse_vgpu_jsonl(RECORDED.read_text())
    assert (result.records_read, result.rejected) == (12, [])
    assert len(result.tables[HOSTS_TABLE]) == 6
    samples = result.tables[SAMPLES_TABLE]
    assert len(samples) == 6
    first = samples[0]
    assert (first.vgpu_uuid, first.vm_id, first.fb_used_bytes) == (
        host.VGPU_A,
        host.VM_A,
        20 * 1024**3,
    )
    assert (first.next_poll_due_at - first.sampled_at).total_seconds() == 30
    lost = [h for h in result.tables[HOSTS_TABLE] if h.error]
    assert [(h.gpu_uuid, h.active_vgpu_count) for h in lost] == [(host.GPU1_UUID, None)]


def test_recorded_polls_land_once(home: Path) -> None:
    first = run_cli(home, None, "ingest", "vgpu", "--file", str(RECORDED))
    assert "read 12, landed 12, quarantined 0" in first.stdout
    again = run_cli(home, None, "ingest", "vgpu", "--file", str(RECORDED))
    assert "already landed" in again.stdout


def _with(record: dict, **changes: object) -> str:
    return json.dumps(record | changes)


BAD = [
    ("invalid JSON", '{"record_type": "vgpu",', "line", "invalid JSON"),
    ("unknown record type", _with(VGPU, record_type="guest"), "record_type", "'guest'"),
    ("VM id type", _with(VGPU, vm_id_type="name"), "vm_id_type", "not one of uuid, domain_id"),
    ("VM id without type", _with(VGPU, vm_id_type=None), "vm_id_type", "missing"),
    ("negative framebuffer", _with(VGPU, fb_used_bytes=-1), "fb_used_bytes", ">= 0"),
    ("no vGPU UUID, no error", _with(VGPU, vgpu_uuid=None), "vgpu_uuid", "missing"),
    ("SM over 100", _with(VGPU, sm_util_percent=250), "sm_util_percent", "<= 100"),
    ("no physical GPU", _with(VGPU, gpu_uuid=None), "gpu_uuid", "missing"),
    ("instance as text", _with(VGPU, vgpu_instance="10"), "vgpu_instance", "integer"),
    ("zone-less time", _with(POLL, sampled_at="2026-10-05 12:00:00"), "sampled_at", "no zone"),
    ("negative count", _with(POLL, active_vgpu_count=-2), "active_vgpu_count", ">= 0"),
    ("no interval", _with(POLL, interval_seconds=None), "interval_seconds", "missing"),
]


@pytest.mark.parametrize(("case", "line", "field", "reason"), BAD, ids=[b[0] for b in BAD])
def test_bad_record_is_quarantined_with_line_and_field(
    case: str, line: str, field: str, reason: str
) -> None:
    result = parse_vgpu_jsonl("\n".join([LINES[0], line, LINES[1]]))
    (rejected,) = result.rejected
    assert (rejected.line, rejected.field) == (2, field)
    assert reason in rejected.reason
    assert len(result.tables[HOSTS_TABLE]) == 1 and len(result.tables[SAMPLES_TABLE]) == 1
