"""The CLI's progress display (rich) for the tasks extractors.progress reports: a file being
landed (bytes read of its size, records landed, rate, time left) and a build (dbt nodes done
of those selected, the last one finished).

Installed only when standard error is a terminal (and GPULEDGER_PROGRESS is not `off`), and
transient: the bars vanish when their task ends, leaving the command's own lines, so a
terminal reads as a log or CI does, where nothing of this is ever written.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from rich.console import Console
from rich.filesize import decimal
from rich.progress import BarColumn, Progress, ProgressColumn, Task, TaskID, TimeRemainingColumn
from rich.text import Text

from extractors import progress

SWITCH = "GPULEDGER_PROGRESS"  # off: never show progress


class _Amount(ProgressColumn):
    """Done of total, in the task's unit: `12.3/45.6 MB`, `312/529 nodes`."""

    def render(self, task: Task) -> Text:
        unit, done, total = task.fields["unit"], int(task.completed), task.total
        if unit == "bytes":
            text = decimal(done) if total is None else f"{decimal(done)}/{decimal(int(total))}"
        else:
            text = f"{done:,}" + ("" if total is None else f"/{int(total):,}") + f" {unit}"
        return Text(text, style="progress.download")


class _Rate(ProgressColumn):
    """Records landed and their rate (a landing), or the unit's rate (a build)."""

    def render(self, task: Task) -> Text:
        elapsed = task.elapsed or 0.0
        records = task.fields["records"]
        if records:
            rate = f" ({records / elapsed:,.0f}/s)" if elapsed > 0.5 else ""
            return Text(f"{records:,} records{rate}", style="progress.data.speed")
        if task.fields["unit"] == "bytes":
            speed = task.finished_speed or task.speed
            return Text(f"{decimal(int(speed))}/s" if speed else "", style="progress.data.speed")
        return Text(task.fields["note"], style="progress.description")


class TerminalProgress:
    """extractors.progress.Display on a rich console."""

    def __init__(self, console: Console) -> None:
        self._bars = Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            _Amount(),
            _Rate(),
            TimeRemainingColumn(),
            console=console,
            transient=True,
            refresh_per_second=4,
        )
        self._records: dict[TaskID, int] = {}  # the tasks shown, and their records so far

    def begin(self, label: str, total: int | None, unit: str) -> TaskID:
        if not self._records:
            self._bars.start()
        task_id = self._bars.add_task(label, total=total, unit=unit, records=0, note="")
        self._records[task_id] = 0
        return task_id

    def advance(self, handle: object, done: int, records: int, note: str | None) -> None:
        task_id = TaskID(handle)  # type: ignore[arg-type]
        fields: dict[str, Any] = {}
        if records:
            self._records[task_id] += records
            fields["records"] = self._records[task_id]
        if note is not None:
            fields["note"] = note
        self._bars.update(task_id, advance=done, **fields)

    def end(self, handle: object) -> None:
        task_id = TaskID(handle)  # type: ignore[arg-type]
        self._bars.refresh()  # the task's last figures, before its bar goes
        self._bars.remove_task(task_id)
        del self._records[task_id]
        if not self._records:
            self._bars.stop()


def wanted(stream: IO[str]) -> bool:
    """Progress belongs on a terminal, unless GPULEDGER_PROGRESS=off."""
    return os.environ.get(SWITCH, "").lower() != "off" and stream.isatty()


@contextmanager
def shown(console: Console | None = None) -> Iterator[None]:
    """Show the progress of what runs inside, on standard error when it is a terminal (or on
    `console`, which a test gives)."""
    if console is None:
        if not wanted(sys.stderr):
            yield
            return
        console = Console(stderr=True)
    previous = progress.install(TerminalProgress(console))
    try:
        yield
    finally:
        progress.install(previous)
