"""Discover the `gpuledger ingest SOURCE` commands: one `command.py` per extractor package.

A command module has `HELP`, `add_arguments(parser)` and `ingest(home, args)`, which returns
the LandingReport of each batch it landed (and prints progress itself on long live runs).
File ingests land each file through `land_each`: every file is attempted, and when one
cannot be landed the others still are (`FilesFailed` carries every file's outcome in order).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

from extractors.filebatch import SourceFileError
from extractors.landing import LandingReport

# One file's outcome: its landing, or the one-line message saying why it did not land.
Outcome = LandingReport | str


class FilesFailed(SourceFileError):
    """Some files of an ingest could not be landed; `outcomes` holds every file's, in order
    (the message is the failed files' messages, one per line)."""

    def __init__(self, outcomes: Sequence[Outcome]) -> None:
        self.outcomes = tuple(outcomes)
        super().__init__("\n".join(o for o in self.outcomes if isinstance(o, str)))


def land_each(
    paths: Sequence[Path], land_one: Callable[[Path], LandingReport]
) -> list[LandingReport]:
    """`land_one` of every path in order; raises FilesFailed after the last when any failed."""
    outcomes: list[Outcome] = []
    for path in paths:
        try:
            outcomes.append(land_one(path))
        except SourceFileError as exc:
            outcomes.append(str(exc))
        except (ValueError, OSError) as exc:
            outcomes.append(f"{path}: {exc}")
    if any(isinstance(o, str) for o in outcomes):
        raise FilesFailed(outcomes)
    return [o for o in outcomes if isinstance(o, LandingReport)]


def source_commands() -> dict[str, ModuleType]:
    import extractors

    commands = {}
    for module in sorted(pkgutil.iter_modules(extractors.__path__), key=lambda m: m.name):
        if not module.ispkg:
            continue
        try:
            commands[module.name] = importlib.import_module(f"extractors.{module.name}.command")
        except ModuleNotFoundError as exc:
            if exc.name != f"extractors.{module.name}.command":
                raise
    return commands
