"""Discover the `gpuledger ingest SOURCE` commands: one `command.py` per extractor package.

A command module has `HELP`, `add_arguments(parser)` and `ingest(home, args)`, which returns
the LandingReport of each batch it landed (and prints progress itself on long live runs).
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


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
