"""Progress on a terminal (gpuledger.progress over extractors.progress): a landing shows its
file's bytes of its size and the records it landed; a build counts its dbt nodes; off a
terminal, or with GPULEDGER_PROGRESS=off, nothing is shown."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from rich.console import Console
from rich.filesize import decimal

from extractors import progress
from gpuledger.progress import shown, wanted
from tests.conftest import FIXTURES, run_cli, write_inventory, write_policy

SACCT = FIXTURES / "real" / "slurm" / "slurm22.05_sacct_parsable2.txt"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@dataclass
class Recorder:
    """A display that keeps what it was told."""

    tasks: list[dict] = field(default_factory=list)

    def begin(self, label: str, total: int | None, unit: str) -> int:
        self.tasks.append(
            {"label": label, "total": total, "unit": unit, "done": 0, "records": 0, "notes": []}
        )
        return len(self.tasks) - 1

    def advance(self, handle: object, done: int, records: int, note: str | None) -> None:
        task = self.tasks[handle]  # type: ignore[index]
        task["done"] += done
        task["records"] += records
        if note:
            task["notes"].append(note)

    def end(self, handle: object) -> None:
        self.tasks[handle]["ended"] = True  # type: ignore[index]


@pytest.fixture
def recorder() -> Recorder:
    display = Recorder()
    previous = progress.install(display)
    yield display
    progress.install(previous)


def test_a_landing_on_a_terminal_shows_its_file_bytes_and_records(home: Path) -> None:
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=160, color_system=None)
    with shown(console):
        result = run_cli(home, None, "ingest", "slurm", "--cluster", "probe", "--file", str(SACCT))
    assert result.exit_code == 0, result.stderr
    text = ANSI.sub("", screen.getvalue())
    size = decimal(SACCT.stat().st_size)
    # 8 job rows and 18 step rows landed; the whole file read
    assert f"slurm {SACCT.name}" in text
    assert f"{size}/{size}" in text
    assert "26 records" in text
    assert progress.install(None) is None  # the display is gone with the block


def test_landing_reports_every_byte_and_every_landed_row(home: Path, recorder: Recorder) -> None:
    assert (
        run_cli(home, None, "ingest", "slurm", "--cluster", "p", "--file", str(SACCT)).exit_code
        == 0
    )
    (task,) = recorder.tasks
    assert task["label"] == f"slurm {SACCT.name}"
    assert task["unit"] == "bytes"
    assert task["total"] == task["done"] == SACCT.stat().st_size
    assert task["records"] == 26
    assert task["ended"]


def test_a_build_counts_its_dbt_nodes(tmp_path: Path, home: Path, recorder: Recorder) -> None:
    policy = write_policy(
        tmp_path / "policy",
        {
            "tenants": ["atlas,Atlas,,"],
            "ownership": ["slurm_account,atlas,atlas,,2026-01-01T00:00:00Z,"],
            "rate_card": ["r,2026-01-01T00:00:00Z,,h100,allocated_gpu_hour,3600,USD"],
            "settings": ["charging_model,allocation_rate"],
        },
    )
    inventory = write_inventory(tmp_path / "inventory.csv", {"gpunode01": 8})
    assert run_cli(home, policy, "ingest", "inventory", "--file", str(inventory)).exit_code == 0
    build = run_cli(home, policy, "build")
    assert build.exit_code == 0, build.stderr
    (task,) = [t for t in recorder.tasks if t["label"] == "dbt build"]
    assert task["unit"] == "nodes"
    # every model and data test the build selected reported once, by name
    assert task["total"] > 400
    assert task["done"] == len(set(task["notes"])) == task["total"]
    assert "marts__fact_chargeback" in task["notes"]
    assert "fact_chargeback not_null_fact_chargeback_tenant_id" in task["notes"]
    assert task["ended"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_shown_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPULEDGER_PROGRESS", raising=False)
    assert wanted(_Terminal())
    assert not wanted(io.StringIO())  # a pipe, a log file, CI
    monkeypatch.setenv("GPULEDGER_PROGRESS", "off")
    assert not wanted(_Terminal())


def test_off_a_terminal_the_cli_installs_no_display(home: Path, recorder: Recorder) -> None:
    # run_cli's standard error is a StringIO: the CLI leaves the installed display alone
    assert (
        run_cli(home, None, "ingest", "slurm", "--cluster", "p", "--file", str(SACCT)).exit_code
        == 0
    )
    assert progress.install(recorder) is recorder
