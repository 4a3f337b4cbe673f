"""The demo generator: deterministic, small and fast; every file parses with nothing
quarantined through the real parsers; no node, GPU, MIG layout, time-slice or vGPU is ever
over-committed; and the sources agree with each other and with policy/demo.

The checks re-read the written files (with the real parsers, or a small parser of their
own for sacct), so they do not trust the generator's bookkeeping; only the per-GPU
time-slice check reads the generator's device assignment, which no file records. The month
is generated once for the package.
"""

from __future__ import annotations

import collections
import json
import time

import pytest

from extractors.inventory.parse import parse_inventory_csv
from extractors.kubernetes.parse import ParseOptions, parse_document
from extractors.records import ParseResult
from extractors.requests.parse import parse_requests_jsonl
from extractors.vgpu.parse import parse_vgpu_jsonl
from gpuledger.demo import K8S_CLUSTER, DemoFiles, generate
from tests.demo.evidence import EXTRACTED, Kube, PodInterval, Row, parsed, read_rows


@pytest.fixture(scope="package")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[DemoFiles, float]:
    began = time.perf_counter()
    files = generate(tmp_path_factory.mktemp("demo"))
    return files, time.perf_counter() - began


@pytest.fixture(scope="package")
def demo(generated: tuple[DemoFiles, float]) -> DemoFiles:
    return generated[0]


@pytest.fixture(scope="package")
def rows(demo: DemoFiles) -> list[Row]:
    return read_rows(demo)


@pytest.fixture(scope="package")
def jobs(rows: list[Row]) -> list[Row]:
    return [r for r in rows if not r.is_step]


@pytest.fixture(scope="package")
def inventory(demo: DemoFiles) -> dict[str, list[str]]:
    """GPU UUIDs per node, as the real inventory parser reads them."""
    nodes: dict[str, list[str]] = collections.defaultdict(list)
    for device in parsed([demo.inventory], parse_inventory_csv).tables["inventory_devices"]:
        nodes[device.node].append(device.gpu_uuid)
    return dict(nodes)


@pytest.fixture(scope="package")
def kube(demo: DemoFiles) -> Kube:
    options = ParseOptions(cluster=K8S_CLUSTER)
    result = parsed(demo.kubernetes_files, lambda text: parse_document(text, options, EXTRACTED))
    by_request = collections.defaultdict(list)
    for row in result.tables["kubernetes_pod_allocations"]:
        by_request[(row.pod_uid, row.container_name, row.resource_name)].append(row)
    intervals = []
    for seen in by_request.values():
        starts = [r.started_at for r in seen if r.started_at is not None]
        if not starts:
            continue
        ends = {r.finished_at for r in seen if r.finished_at is not None}
        assert len(ends) <= 1, seen[0].pod_name
        first = seen[0]
        intervals.append(
            PodInterval(
                uid=first.pod_uid,
                name=first.pod_name,
                namespace=first.namespace,
                node=next(r.node_name for r in seen if r.node_name),
                resource=first.resource_name,
                sharing_mode=first.sharing_mode,
                mig_profile=first.mig_profile,
                count=first.quantity,
                replicas=first.timeslice_replicas,
                start=min(starts),
                end=ends.pop() if ends else EXTRACTED,
            )
        )
    listing = json.loads(demo.kubernetes_files[-1].read_text(encoding="utf-8"))
    return Kube(result, intervals, listing)


@pytest.fixture(scope="package")
def vgpu(demo: DemoFiles) -> ParseResult:
    return parsed(demo.vgpu_files, parse_vgpu_jsonl)


@pytest.fixture(scope="package")
def requests_log(demo: DemoFiles) -> list:
    return parsed(demo.request_files, parse_requests_jsonl).tables["gateway_requests"]
