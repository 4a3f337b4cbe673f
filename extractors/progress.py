"""Progress of long work, told by the code doing it and shown by whoever installed a display.

An ingest reports the bytes of its file as the parser reads them and the records its batch
lands (extractors.landing.BatchWriter opens the task); a build reports its dbt nodes as they
finish (orchestration.warehouse_assets). Nothing is shown unless a display is installed: the
CLI installs one (gpuledger.progress, rich) only when its standard error is a terminal, so
logs, pipes and CI stay quiet. Reporting costs a function call when no one listens.

    with progress.task("sacct.txt", total=size, unit="bytes"):
        for piece in pieces:
            progress.advance(done=len(piece))
            ...
            progress.advance(records=rows)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol


class Display(Protocol):
    """What shows the tasks (gpuledger.progress.TerminalProgress)."""

    def begin(self, label: str, total: int | None, unit: str) -> object:
        """Start showing a task; returns its handle."""
        ...

    def advance(self, handle: object, done: int, records: int, note: str | None) -> None:
        """`done` more units of the task (bytes, nodes), `records` more records landed."""
        ...

    def end(self, handle: object) -> None:
        """The task finished (or failed): stop showing it."""
        ...


_display: Display | None = None
_open: list[object] = []  # the handles of the tasks begun and not ended, innermost last


def install(display: Display | None) -> Display | None:
    """Show progress on `display` (None: show nothing); returns the display it replaces."""
    global _display
    previous, _display = _display, display
    return previous


@contextmanager
def task(label: str, total: int | None = None, unit: str = "bytes") -> Iterator[None]:
    """One piece of long work (a file's landing, a build); `advance` reports on the innermost."""
    display = _display
    if display is None:
        yield
        return
    handle = display.begin(label, total, unit)
    _open.append(handle)
    try:
        yield
    finally:
        _open.remove(handle)
        display.end(handle)


def advance(done: int = 0, records: int = 0, note: str | None = None) -> None:
    """Report on the innermost open task, if a display shows it."""
    if _display is not None and _open:
        _display.advance(_open[-1], done, records, note)
