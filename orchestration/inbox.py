"""The inbox: evidence files dropped under `<home>/inbox/<source>/` are landed and validated.

A file belongs to the daily partition of its modification time (UTC). Names starting with `.`
or ending in `.tmp` / `.part` are still being written and wait. Landing goes through the
source's own `gpuledger ingest <source> --file PATH` command (default options), then the new
batches are validated (orchestration/validation.py). A landed file moves to
`<home>/inbox/.landed/<source>/`; a file the source cannot read moves to
`<home>/inbox/.failed/<source>/` with `<name>.error.txt` beside it.
"""

from __future__ import annotations

import argparse
import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from extractors.commands import source_commands
from extractors.landing import LandingReport
from gpuledger.core.home import home_lock
from orchestration.validation import BatchOutcome, validate_batches

WAITING_SUFFIXES = (".tmp", ".part")


@dataclass(frozen=True)
class InboxFile:
    source: str
    path: Path
    day: str  # YYYY-MM-DD, UTC, of the file's modification time
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class InboxOutcome:
    landed: tuple[LandingReport, ...]
    validations: tuple[BatchOutcome, ...]
    failed: tuple[tuple[str, str], ...]  # (file, error)


def inbox_dir(home: Path) -> Path:
    return home / "inbox"


def pending_files(home: Path, sources: frozenset[str]) -> list[InboxFile]:
    """Files waiting in the inbox folders of the known sources, oldest first."""
    found = []
    for source in sorted(sources):
        folder = inbox_dir(home) / source
        if not folder.is_dir():
            continue
        for path in folder.iterdir():
            if not path.is_file() or path.name.startswith(".") or path.suffix in WAITING_SUFFIXES:
                continue
            stat = path.stat()
            day = dt.datetime.fromtimestamp(stat.st_mtime, dt.UTC).date().isoformat()
            found.append(InboxFile(source, path, day, stat.st_size, stat.st_mtime_ns))
    return sorted(found, key=lambda f: (f.mtime_ns, f.path.name))


def _move(path: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / path.name
    path.replace(target)
    return target


def land_inbox(home: Path, source: str, day: str) -> InboxOutcome:
    """Land and validate the source's inbox files of one day (each file on its own)."""
    command = source_commands()[source]
    parser = argparse.ArgumentParser(prog=f"gpuledger ingest {source}")
    command.add_arguments(parser)
    landed: list[LandingReport] = []
    failed: list[tuple[str, str]] = []
    for item in pending_files(home, frozenset({source})):
        if item.day != day:
            continue
        try:
            reports = command.ingest(home, parser.parse_args(["--file", str(item.path)]))
        except (ValueError, OSError) as exc:
            moved = _move(item.path, inbox_dir(home) / ".failed" / source)
            moved.with_name(moved.name + ".error.txt").write_text(f"{exc}\n")
            failed.append((str(item.path), str(exc)))
            continue
        landed.extend(reports)
        _move(item.path, inbox_dir(home) / ".landed" / source)
    with home_lock(home):
        validations = validate_batches(home, [r.batch_id for r in landed])
    return InboxOutcome(tuple(landed), tuple(validations), tuple(failed))
