"""The kubectl List / watch-event fixtures the Kubernetes parser tests read, and their helpers.

tests/fixtures/kubernetes/*.json(l) are recorded-shape fixtures written for the project
(see its README.md); tests/fixtures/kubernetes/real/ holds a third party's PodList fixture.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from extractors.kubernetes.parse import ParseOptions, parse_document
from extractors.kubernetes.records import (
    NAMESPACES_TABLE,
    NODES_TABLE,
    PENDING_REQUESTS_TABLE,
    POD_ALLOCATIONS_TABLE,
    RESOURCE_QUOTAS_TABLE,
    NamespaceObservation,
    NodeResource,
    PendingRequest,
    PodAllocation,
    ResourceQuotaObservation,
)
from extractors.records import ParseResult

K8S = Path(__file__).resolve().parents[1] / "fixtures" / "kubernetes"
CLUSTER_LIST = "kubectl-get-pods-namespaces-resourcequotas-nodes.json"
WATCH_PODS = "watch-pods.jsonl"
KUBECTL_WATCH = "kubectl-watch-pods-output-watch-events.json"
WATCH_NAMESPACES = "watch-namespaces.jsonl"
CEEMS_PODS = "real/ceems_pods-metadata.json"
OBSERVED = dt.datetime(2026, 10, 14, 14, 0, 0)


def parse(name: str, **options: object) -> ParseResult:
    text = (K8S / name).read_text(encoding="utf-8")
    return parse_document(text, ParseOptions(**options), OBSERVED)  # type: ignore[arg-type]


def allocations(result: ParseResult) -> list[PodAllocation]:
    return result.tables.get(POD_ALLOCATIONS_TABLE, [])  # type: ignore[return-value]


def pending(result: ParseResult) -> list[PendingRequest]:
    return result.tables.get(PENDING_REQUESTS_TABLE, [])  # type: ignore[return-value]


def namespaces(result: ParseResult) -> list[NamespaceObservation]:
    return result.tables.get(NAMESPACES_TABLE, [])  # type: ignore[return-value]


def quotas(result: ParseResult) -> list[ResourceQuotaObservation]:
    return result.tables.get(RESOURCE_QUOTAS_TABLE, [])  # type: ignore[return-value]


def nodes(result: ParseResult) -> list[NodeResource]:
    return result.tables.get(NODES_TABLE, [])  # type: ignore[return-value]


def by_pod(result: ParseResult) -> dict[tuple[str | None, str], PodAllocation]:
    return {(r.pod_name, r.container_name): r for r in allocations(result)}


def record_numbers(name: str) -> set[int]:
    """Every record a file holds: List item indexes, or the line each watch event starts on."""
    text = (K8S / name).read_text(encoding="utf-8")
    if name.endswith(".jsonl"):
        return {n for n, line in enumerate(text.split("\n"), 1) if line.strip()}
    document = json.loads(text) if not text.lstrip().startswith('{\n    "object"') else None
    if document is not None:
        return set(range(len(document["items"])))
    return {n for n, line in enumerate(text.split("\n"), 1) if line == "{"}


def assert_nothing_lost(result: ParseResult, expected: set[int]) -> None:
    """Every record counted once and either landed (0 or more rows) or rejected, never both."""
    landed = {r.source_line for rows in result.tables.values() for r in rows}  # type: ignore[attr-defined]
    rejected = [r.line for r in result.rejected]
    assert len(rejected) == len(set(rejected))
    assert landed.isdisjoint(rejected)
    assert landed | set(rejected) <= expected
    assert result.records_read == len(expected)
