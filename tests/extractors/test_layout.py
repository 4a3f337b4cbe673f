"""The extractors' rooms: a source package imports no other source's package (what two sources
share lives at extractors/ level), and no extractor module is over 400 lines."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

EXTRACTORS = Path(__file__).resolve().parents[2] / "extractors"
MAX_LINES = 400


def sources(root: Path) -> list[str]:
    """The source packages: every folder of `root` with an `__init__.py`."""
    return sorted(p.name for p in root.iterdir() if (p / "__init__.py").is_file())


def imports(path: Path, package: str) -> Iterator[tuple[int, str]]:
    """(line, dotted name) of everything `path` imports, relative imports resolved against
    `package` (the module's package, `extractors.nvml`); `from a import b` yields `a.b` too."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            yield node.lineno, base
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}"


def cross_source_imports(root: Path) -> list[str]:
    """`<source>/<file>:<line> imports extractors.<other>` for every import of another source."""
    names = sources(root)
    found = set()
    for source in names:
        for path in sorted((root / source).rglob("*.py")):
            package = ".".join(["extractors", *path.relative_to(root).parent.parts])
            for line, module in imports(path, package):
                parts = [*module.split("."), ""]
                if parts[0] == "extractors" and parts[1] != source and parts[1] in names:
                    where = path.relative_to(root)
                    found.add(f"{where}:{line} imports extractors.{parts[1]}")
    return sorted(found)


def test_no_source_imports_another_source() -> None:
    assert len(sources(EXTRACTORS)) >= 7
    assert cross_source_imports(EXTRACTORS) == []


@pytest.mark.parametrize(
    "line",
    [
        "from extractors.nvml.jsonl import FieldError",
        "from extractors.nvml import jsonl",
        "from extractors import nvml",
        "import extractors.nvml.sampler",
        "from ..nvml.live import run_live",
        "from .. import nvml",
    ],
)
def test_the_check_sees_every_spelling(tmp_path: Path, line: str) -> None:
    for source in ("nvml", "vgpu"):
        (tmp_path / source).mkdir()
        (tmp_path / source / "__init__.py").write_text("")
    (tmp_path / "vgpu" / "parse.py").write_text(f"from extractors import jsonl\n{line}\n")
    assert cross_source_imports(tmp_path) == ["vgpu/parse.py:2 imports extractors.nvml"]


def test_no_extractor_module_is_over_400_lines() -> None:
    sizes = {
        str(path.relative_to(EXTRACTORS)): len(path.read_text().splitlines())
        for path in sorted(EXTRACTORS.rglob("*.py"))
    }
    assert {name: lines for name, lines in sizes.items() if lines > MAX_LINES} == {}
