"""The project's import graph, read from the source (every import statement, also those inside
functions), and the layer rules ARCHITECTURE.md states."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("extractors", "gpuledger", "orchestration")
# lowest first: a module may import its own layer and the layers below it
LAYERS = ("extractors", "core", "orchestration", "application")
FORBIDDEN = {
    "extractors": ("dagster", "dagster_dbt", "dbt", "gpuledger"),
    "core": ("dagster", "dagster_dbt", "argparse"),
}


def layer_of(module: str) -> str:
    if module.startswith("extractors"):
        return "extractors"
    if module == "gpuledger.core" or module.startswith("gpuledger.core."):
        return "core"
    if module.startswith("orchestration"):
        return "orchestration"
    return "application"


def module_sources(root: Path = REPO) -> dict[str, str]:
    """Module name -> source text of every module of the project's packages."""
    sources = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            sources[".".join(parts)] = path.read_text()
    return sources


def imported_names(source: str) -> Iterator[str]:
    """Every module an import statement names (for `from a import b`, `a.b` and `a`)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


@dataclass(frozen=True)
class Violation:
    importer: str
    imported: str
    rule: str

    def __str__(self) -> str:
        return f"{self.importer} imports {self.imported}: {self.rule}"


def graph(sources: Mapping[str, str]) -> dict[str, set[str]]:
    """Module -> the project modules it imports."""
    edges: dict[str, set[str]] = {}
    for module, source in sources.items():
        targets = {name for name in imported_names(source) if name in sources}
        edges[module] = targets - {module}
    return edges


def layer_violations(sources: Mapping[str, str]) -> list[Violation]:
    found = []
    for module, source in sources.items():
        own = LAYERS.index(layer_of(module))
        for name in set(imported_names(source)):
            if name in sources and LAYERS.index(layer_of(name)) > own:
                found.append(Violation(module, name, f"{layer_of(name)} is above {LAYERS[own]}"))
            for forbidden in FORBIDDEN.get(layer_of(module), ()):
                if name == forbidden or name.startswith(forbidden + "."):
                    found.append(Violation(module, name, f"{layer_of(module)} never imports it"))
    return sorted(found, key=str)


def cycles(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found
