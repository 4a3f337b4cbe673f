"""The demo generator: deterministic, small and fast; every file parses with nothing
quarantined through the real parsers; no node, GPU, MIG layout, time-slice or vGPU is ever
over-committed; and the sources agree with each other and with policy/demo.

The checks re-read the written files (with the real parsers, or a small parser of their
own for sacct), so they do not trust the generator's bookkeeping; only the per-GPU
time-slice check reads the generator's device assignment, which no file records.
"""

from __future__ import annotations

import collections
import csv
import datetime as dt
import itertools
import json
import random
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from extractors.inventory.parse import parse_inventory_csv
from extractors.kubernetes.parse import ParseOptions, parse_document
from extractors.nvml.parse import parse_nvml_jsonl
from extractors.prometheus.parse import parse_query_range
from extractors.records import ParseResult
from extractors.requests.parse import parse_requests_jsonl
from extractors.slurm.parse import parse_sacct_text
from extractors.vgpu.parse import parse_vgpu_jsonl
from gpuledger.demo_data import (
    K8S_CLUSTER,
    SHARED_RESOURCE,
    DemoFiles,
    generate,
    kubernetes_workload,
    make_window,
)

REPO = Path(__file__).resolve().parents[1]
POLICY = REPO / "policy" / "demo"
EXTRACTED = dt.datetime(2026, 11, 5)

PERIOD_START = dt.datetime(2026, 10, 1)
PERIOD_END = dt.datetime(2026, 11, 1)
HANDOVER = dt.datetime(2026, 10, 15, 12)
LATE_NODE_FROM = dt.datetime(2026, 10, 8)
OPEN_END = dt.datetime.max
FIELDS = [
    "jobid",
    "jobidraw",
    "cluster",
    "partition",
    "qos",
    "account",
    "group",
    "gid",
    "user",
    "uid",
    "submit",
    "eligible",
    "start",
    "end",
    "elapsed",
    "exitcode",
    "state",
    "nnodes",
    "ncpus",
    "reqcpus",
    "reqmem",
    "reqtres",
    "alloctres",
    "timelimit",
    "nodelist",
    "jobname",
]


@dataclass(frozen=True)
class Row:
    file: str
    values: dict[str, str]

    @property
    def is_step(self) -> bool:
        return "." in self.values["jobid"]

    def time(self, field: str) -> dt.datetime | None:
        text = self.values[field]
        return None if text == "Unknown" else dt.datetime.fromisoformat(text)

    @property
    def gpus(self) -> int:
        match = re.search(r"(?:^|,)gres/gpu=(\d+)", self.values["alloctres"])
        return int(match.group(1)) if match else 0

    @property
    def nodes(self) -> list[str]:
        return expand_hostlist(self.values["nodelist"])

    @property
    def month_gpu_hours(self) -> float:
        start = self.time("start")
        if start is None:
            return 0.0
        end = self.time("end") or OPEN_END
        seconds = (min(end, PERIOD_END) - max(start, PERIOD_START)).total_seconds()
        return max(0.0, seconds) * self.gpus / 3600


def expand_hostlist(text: str) -> list[str]:
    match = re.fullmatch(r"(.+)-\[(.+)\]", text)
    if match is None:
        return [text]
    names = []
    for part in match.group(2).split(","):
        low, _, high = part.partition("-")
        for number in range(int(low), int(high or low) + 1):
            names.append(f"{match.group(1)}-{number:0{len(low)}d}")
    return names


def read_rows(files: DemoFiles) -> list[Row]:
    rows = []
    for path in files.sacct_files:
        for line in path.read_text(encoding="utf-8").splitlines():
            rows.append(Row(path.name, dict(zip(FIELDS, line.split("|"), strict=True))))
    return rows


def parsed(paths: Iterable[Path], parse: Callable[[str], ParseResult]) -> ParseResult:
    """The rows of every file through the real parser, asserting nothing was quarantined."""
    merged = ParseResult()
    for path in paths:
        result = parse(path.read_text(encoding="utf-8"))
        assert result.records_read > 0, path.name
        assert result.rejected == [], f"{path.name}: {result.rejected[:3]}"
        merged.records_read += result.records_read
        for table, table_rows in result.tables.items():
            for row in table_rows:
                merged.add(table, row)
    return merged


def peak(intervals: Iterable[tuple[dt.datetime, dt.datetime, float]]) -> float:
    """The largest sum of amounts held at one instant ([start, end); ends release first)."""
    changes = sorted(
        change for start, end, amount in intervals for change in ((start, amount), (end, -amount))
    )
    held = most = 0.0
    for _, change in changes:
        held += change
        most = max(most, held)
    return most


def month_hours(start: dt.datetime, end: dt.datetime) -> float:
    seconds = (min(end, PERIOD_END) - max(start, PERIOD_START)).total_seconds()
    return max(0.0, seconds) / 3600


def policy_rows(name: str) -> list[dict[str, str]]:
    with (POLICY / f"{name}.csv").open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def owners(scope_type: str) -> dict[str, str]:
    return {
        r["scope_key"]: r["tenant_id"]
        for r in policy_rows("ownership")
        if r["scope_type"] == scope_type
    }


def weights(mode: str) -> dict[str, float]:
    return {
        r["profile"]: float(r["capacity_fraction"])
        for r in policy_rows("partition_weights")
        if r["sharing_mode"] == mode and r["gpu_model"] == "NVIDIA A100-SXM4-80GB"
    }


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[DemoFiles, float]:
    began = time.perf_counter()
    files = generate(tmp_path_factory.mktemp("demo"))
    return files, time.perf_counter() - began


@pytest.fixture(scope="module")
def demo(generated: tuple[DemoFiles, float]) -> DemoFiles:
    return generated[0]


@pytest.fixture(scope="module")
def rows(demo: DemoFiles) -> list[Row]:
    return read_rows(demo)


@pytest.fixture(scope="module")
def jobs(rows: list[Row]) -> list[Row]:
    return [r for r in rows if not r.is_step]


@pytest.fixture(scope="module")
def inventory(demo: DemoFiles) -> dict[str, list[str]]:
    """GPU UUIDs per node, as the real inventory parser reads them."""
    nodes: dict[str, list[str]] = collections.defaultdict(list)
    for device in parsed([demo.inventory], parse_inventory_csv).tables["inventory_devices"]:
        nodes[device.node].append(device.gpu_uuid)
    return dict(nodes)


@dataclass(frozen=True)
class PodInterval:
    """A pod's GPU request and its allocation interval (open ones end at the extraction)."""

    uid: str
    name: str
    namespace: str
    node: str
    resource: str
    sharing_mode: str
    mig_profile: str | None
    count: int
    replicas: int | None
    start: dt.datetime
    end: dt.datetime


@dataclass(frozen=True)
class Kube:
    result: ParseResult
    intervals: list[PodInterval]
    listing: dict[str, object]

    def table(self, name: str) -> list:
        return self.result.tables.get(name, [])


@pytest.fixture(scope="module")
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


def node_labels(kube: Kube) -> dict[str, dict[str, str]]:
    return {
        item["metadata"]["name"]: item["metadata"]["labels"]
        for item in kube.listing["items"]
        if item["kind"] == "Node"
    }


def namespace_tenants(kube: Kube) -> dict[str, str | None]:
    """Who owns each namespace: its tenant label, else policy/demo/ownership.csv, else nobody."""
    policy = owners("k8s_namespace")
    return {
        row.name: row.tenant_label_value or policy.get(row.name)
        for row in kube.table("kubernetes_namespaces")
    }


def gpu_equivalents(interval: PodInterval) -> float:
    if interval.sharing_mode == "mig":
        return interval.count * weights("mig")[interval.mig_profile]
    if interval.sharing_mode == "timeslice":
        return interval.count / (interval.replicas or 4)
    return float(interval.count)


@pytest.fixture(scope="module")
def vgpu(demo: DemoFiles) -> ParseResult:
    return parsed(demo.vgpu_files, parse_vgpu_jsonl)


@pytest.fixture(scope="module")
def requests_log(demo: DemoFiles) -> list:
    return parsed(demo.request_files, parse_requests_jsonl).tables["gateway_requests"]


# ---------------------------------------------------------------- every source


def file_bytes(files: DemoFiles) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in files.all_files()}


def test_same_seed_writes_the_same_bytes(demo: DemoFiles, tmp_path: Path) -> None:
    again = generate(tmp_path / "again")
    assert file_bytes(again) == file_bytes(demo)
    other = file_bytes(generate(tmp_path / "other", seed=8))
    assert other.keys() == file_bytes(demo).keys()
    assert all(other[name] != data for name, data in file_bytes(demo).items())


def test_generation_is_fast_and_small(generated: tuple[DemoFiles, float]) -> None:
    files, seconds = generated
    sizes = {p.name: p.stat().st_size for p in files.all_files()}
    print(f"\ngenerated {len(sizes)} files, {sum(sizes.values()) / 1e6:.1f} MB in {seconds:.2f} s")
    assert seconds < 5
    assert max(sizes.values()) < 4_000_000
    assert sum(sizes.values()) < 20_000_000


def test_every_file_bears_the_extraction_instant(demo: DemoFiles) -> None:
    extracted = (EXTRACTED - dt.datetime(1970, 1, 1)).total_seconds()
    assert {p.stat().st_mtime for p in demo.all_files()} == {extracted}


def test_files_of_every_source(demo: DemoFiles) -> None:
    assert [p.name for p in demo.sacct_files] == [
        f"sacct_2026-W{week}.txt" for week in range(39, 46)
    ]
    assert [p.name for p in demo.kubernetes_files] == [
        "kubectl-get-pods-watch.jsonl",
        "kubectl-get-pods-namespaces-resourcequotas-nodes.json",
    ]
    assert [p.name for p in demo.vgpu_files] == ["vgpu-hv-a100-01.jsonl"]
    assert [p.name for p in demo.nvml_files] == [
        "nvml-hgx-h100-01.jsonl",
        "nvml-dgx-a100-01.jsonl",
        "nvml-k8s-h100-01.jsonl",
        "nvml-k8s-l4-ts-01.jsonl",
    ]
    assert len(demo.prometheus_files) == 6
    assert [p.name for p in demo.request_files] == ["gateway-chat-shared-2026-10.jsonl"]


@pytest.mark.parametrize(
    ("source", "parse"),
    [
        ("sacct_files", lambda text: parse_sacct_text(text, cluster=None, timezone="UTC")),
        ("vgpu_files", parse_vgpu_jsonl),
        ("nvml_files", parse_nvml_jsonl),
        ("prometheus_files", parse_query_range),
        ("request_files", parse_requests_jsonl),
    ],
)
def test_every_record_lands_through_the_real_parser(
    demo: DemoFiles, source: str, parse: Callable[[str], ParseResult]
) -> None:
    paths: Sequence[Path] = getattr(demo, source)
    result = parsed(paths, parse)
    landed = sum(len(table_rows) for table_rows in result.tables.values())
    assert result.records_read > 0 and landed >= result.records_read


def test_inventory_lists_every_gpu_of_the_fleet(
    demo: DemoFiles, inventory: dict[str, list[str]]
) -> None:
    with demo.inventory.open(newline="", encoding="utf-8") as handle:
        table = list(csv.reader(handle))
    header = ["gpu_uuid", "node", "gpu_model", "gpu_class", "in_service_from", "in_service_to"]
    assert table[0] == header
    gpus = table[1:]
    assert len(gpus) == 128
    assert len({g[0] for g in gpus}) == 128
    assert all(re.fullmatch(r"GPU-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", g[0]) for g in gpus)
    per_node = collections.Counter((g[1], g[2], g[3], g[4], g[5]) for g in gpus)
    since, late = "2025-01-01T00:00:00Z", "2026-10-08T00:00:00Z"
    h100, a100, l4 = "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA L4"
    assert per_node[("hgx-h100-08", h100, "h100", since, "")] == 8
    assert per_node[("dgx-a100-01", a100, "a100", since, "")] == 8
    assert per_node[("dgx-a100-04", a100, "a100", late, "")] == 8
    assert per_node[("k8s-h100-02", h100, "h100", since, "")] == 8
    assert per_node[("k8s-a100-mig-01", a100, "a100", since, "")] == 8
    assert per_node[("k8s-l4-ts-01", l4, "l4", since, "")] == 4
    assert per_node[("hv-a100-01", a100, "a100", since, "")] == 4
    assert len(per_node) == 17
    classes = {r["gpu_model"]: r["gpu_class"] for r in policy_rows("gpu_classes")}
    assert all(classes[g[2]] == g[3] for g in gpus), "policy/demo/gpu_classes.csv lacks a model"
    assert {n: len(u) for n, u in inventory.items()} == {n: c for (n, *_), c in per_node.items()}


# ---------------------------------------------------------------- Slurm


def test_every_line_has_the_26_xdmod_fields(demo: DemoFiles) -> None:
    for path in demo.sacct_files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert line.count("|") == 25, f"{path.name}:{number}"
            assert "T" in line.split("|")[10], f"{path.name}:{number} submit"


def test_steps_follow_their_job(rows: list[Row]) -> None:
    current = None
    steps: dict[str, set[str]] = collections.defaultdict(set)
    for row in rows:
        jobid = row.values["jobid"]
        if row.is_step:
            base, step = jobid.split(".")
            assert base == current, f"{jobid} is not after its job"
            steps[base].add(step)
        else:
            current = jobid
    for row in rows:
        if row.is_step:
            continue
        expected = set() if row.values["state"] == "PENDING" else {"batch", "extern"}
        assert expected <= steps[row.values["jobid"]] <= expected | {"0"}


def test_a_job_lands_in_the_week_of_its_end(jobs: list[Row]) -> None:
    for job in jobs:
        end = job.time("end") or dt.datetime(2026, 11, 5)
        year, week, _ = end.isocalendar()
        assert job.file == f"sacct_{year}-W{week:02d}.txt", job.values["jobid"]


def test_gpus_held_never_exceed_a_node(jobs: list[Row]) -> None:
    events: dict[str, list[tuple[dt.datetime, int]]] = collections.defaultdict(list)
    for job in jobs:
        start = job.time("start")
        if start is None:
            continue
        nodes = job.nodes
        per_node = job.gpus // len(nodes)
        assert per_node * len(nodes) == job.gpus and per_node in (1, 2, 4, 8)
        for node in nodes:
            events[node].append((start, per_node))
            events[node].append((job.time("end") or OPEN_END, -per_node))
    assert len(events) == 12  # the Slurm nodes only
    for node, changes in events.items():
        held = 0
        for _, change in sorted(changes):  # at one instant releases (negative) sort first
            held += change
            assert 0 <= held <= 8, node


def test_new_node_runs_nothing_before_it_enters_service(jobs: list[Row]) -> None:
    late = [j for j in jobs if "dgx-a100-04" in j.nodes]
    assert late
    assert min(j.time("start") for j in late) >= LATE_NODE_FROM


def test_workload_covers_the_demo_cases(jobs: list[Row]) -> None:
    assert 1500 <= len(jobs) <= 2500
    states = collections.Counter(j.values["state"].split()[0] for j in jobs)
    for state in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_MEMORY"):
        assert states[state] > 0, state
    for state in ("NODE_FAIL", "PREEMPTED", "RUNNING", "PENDING"):
        assert states[state] > 0, state
    by_state = {j.values["state"].split()[0]: j.values for j in jobs}
    assert by_state["FAILED"]["exitcode"] == "1:0"
    assert by_state["OUT_OF_MEMORY"]["exitcode"] == "0:125"
    assert re.fullmatch(r"CANCELLED by \d+", by_state["CANCELLED"]["state"])
    assert by_state["RUNNING"]["end"] == "Unknown"
    pending = by_state["PENDING"]
    assert (pending["start"], pending["nodelist"], pending["alloctres"]) == (
        "Unknown",
        "None assigned",
        "",
    )
    assert "gres/gpu=" in pending["reqtres"]

    started = [j for j in jobs if j.time("start")]
    ends = [(j.time("start"), j.time("end") or OPEN_END) for j in started]
    assert any(s < PERIOD_START < e for s, e in ends), "no job crosses into the month"
    assert any(s < PERIOD_END < e for s, e in ends), "no job crosses out of the month"
    assert min(s for s, _ in ends) >= dt.datetime(2026, 9, 25)

    nlp = [
        (j.time("start"), j.time("end") or OPEN_END)
        for j in started
        if j.values["account"] == "nlp-shared"
    ]
    assert any(e <= HANDOVER for _, e in nlp)
    assert any(s >= HANDOVER for s, _ in nlp)
    assert any(s < HANDOVER < e for s, e in nlp)

    array = sorted(j.values["jobid"] for j in jobs if "_" in j.values["jobid"])
    base = array[0].split("_")[0]
    assert array == [f"{base}_{i}" for i in range(4)]
    assert any(len(j.nodes) == 2 and j.gpus == 16 for j in started)


def test_tres_lists_typed_and_untyped_gpus(jobs: list[Row]) -> None:
    job = next(j for j in jobs if j.values["partition"] == "gpu-h100" and j.time("start"))
    alloc = job.values["alloctres"]
    assert re.fullmatch(
        r"billing=\d+,cpu=\d+,gres/gpu:h100=(\d+),gres/gpu=\1,mem=\d+M,node=1", alloc
    ) or re.fullmatch(r"billing=\d+,cpu=\d+,gres/gpu:h100=16,gres/gpu=16,mem=\d+M,node=2", alloc)
    assert re.fullmatch(r"billing=\d+,cpu=\d+,gres/gpu=\d+,mem=\d+M,node=\d", job.values["reqtres"])
    assert re.fullmatch(r"(\d+-)?\d{2}:\d{2}:\d{2}", job.values["elapsed"])


# ---------------------------------------------------------------- Kubernetes


def test_kubernetes_devices_never_exceed_a_node(kube: Kube) -> None:
    capacity = {
        (row.node_name, row.resource_name): row.capacity for row in kube.table("kubernetes_nodes")
    }
    gpus = {
        name: int(labels.get("nvidia.com/gpu.count", 0))
        for name, labels in node_labels(kube).items()
    }
    by_resource = collections.defaultdict(list)
    by_node = collections.defaultdict(list)
    for interval in kube.intervals:
        by_resource[(interval.node, interval.resource)].append(interval)
        by_node[interval.node].append(interval)
    for key, intervals in by_resource.items():
        held = peak((i.start, i.end, i.count) for i in intervals)
        assert held <= capacity[key], key
    for node, intervals in by_node.items():
        held = peak((i.start, i.end, gpu_equivalents(i)) for i in intervals)
        assert held <= gpus[node] + 1e-6, node
    assert set(by_node) == {"k8s-h100-01", "k8s-h100-02", "k8s-a100-mig-01", "k8s-l4-ts-01"}
    modes = {(i.node, i.sharing_mode) for i in kube.intervals}
    assert modes == {
        ("k8s-h100-01", "whole"),
        ("k8s-h100-02", "whole"),
        ("k8s-a100-mig-01", "mig"),
        ("k8s-l4-ts-01", "timeslice"),
    }
    assert peak((i.start, i.end, i.count) for i in by_node["k8s-h100-01"]) == 8


def test_mig_node_advertises_a_valid_a100_layout(kube: Kube) -> None:
    mig = {
        row.mig_profile: row.capacity
        for row in kube.table("kubernetes_nodes")
        if row.node_name == "k8s-a100-mig-01"
    }
    gpus = int(node_labels(kube)["k8s-a100-mig-01"]["nvidia.com/gpu.count"])
    slices = {"1g.10gb": 1, "2g.20gb": 2, "3g.40gb": 3}
    assert set(mig) == set(slices)
    assert all(count % gpus == 0 for count in mig.values()), "GPUs partitioned alike"
    assert sum(slices[p] * count // gpus for p, count in mig.items()) <= 7


def test_time_slices_never_exceed_the_replicas_of_a_gpu() -> None:
    window = make_window("2026-10")
    pods = kubernetes_workload(random.Random("7-kubernetes"), window)
    per_gpu = collections.defaultdict(list)
    namespaces = collections.defaultdict(list)
    for pod in pods:
        if pod.resource == SHARED_RESOURCE and pod.started_at is not None:
            end = min(pod.finished_at or EXTRACTED, EXTRACTED)
            for slot in pod.slots:
                per_gpu[(slot.node, slot.gpu_index)].append((pod.started_at, end, 1))
                namespaces[(slot.node, slot.gpu_index)].append((pod.started_at, end, pod.namespace))
    assert len(per_gpu) >= 2, "replicas bin-packed, but more than one GPU in use"
    assert 2 <= max(peak(intervals) for intervals in per_gpu.values()) <= 4, "shared, within"
    shared_across_tenants = [
        (a, b)
        for held in namespaces.values()
        for a, b in itertools.combinations(held, 2)
        if a[2] != b[2] and a[0] < b[1] and b[0] < a[1]
    ]
    assert shared_across_tenants, "pods of two namespaces time-slice one GPU at once"


def test_kubernetes_evidence_covers_the_demo_cases(kube: Kube) -> None:
    allocations = kube.table("kubernetes_pod_allocations")
    phases = collections.Counter(row.phase for row in allocations)
    assert phases["Running"] and phases["Succeeded"] and phases["Failed"] and phases["Pending"]
    assert any(row.is_deleted and row.finished_at_source == "terminated" for row in allocations)
    assert any(i.end == EXTRACTED for i in kube.intervals), "a pod still running when listed"
    assert any(i.start < PERIOD_START < i.end for i in kube.intervals)
    assert any(i.start < PERIOD_END < i.end for i in kube.intervals)
    listed_pending = [
        row
        for row in kube.table("kubernetes_pending_requests")
        if row.event_type is None and row.node_name is None
    ]
    assert listed_pending and all(r.unschedulable_reason == "Unschedulable" for r in listed_pending)
    assert {i.replicas for i in kube.intervals if i.namespace == "sandbox"} == {4}

    tenants = namespace_tenants(kube)
    assert {ns: tenants[ns] for ns in {i.namespace for i in kube.intervals}} == {
        "ml-serving": "boreal",
        "research-train": "atlas",
        "vision": "delta",
        "nlp-notebooks": "cirrus",
        "sandbox": None,
    }
    labels = {row.name: json.loads(row.labels) for row in kube.table("kubernetes_namespaces")}
    assert len(labels["sandbox"]) > 1 and "gpuledger.io/tenant" not in labels["sandbox"]
    assert "gpuledger.io/tenant" not in labels["nlp-notebooks"]

    quotas = kube.table("kubernetes_resource_quotas")
    assert any(
        q.namespace == "research-train" and q.resource_name == "requests.nvidia.com/gpu"
        for q in quotas
    )
    assert all(q.used is not None and q.used <= q.hard for q in quotas)
    replicas = {row.node_name: row.timeslice_replicas for row in kube.table("kubernetes_nodes")}
    assert replicas["k8s-l4-ts-01"] == 4


# ---------------------------------------------------------------- vGPU


def test_vgpu_fractions_never_exceed_a_gpu(
    vgpu: ParseResult, inventory: dict[str, list[str]]
) -> None:
    fraction = weights("vgpu")
    samples = vgpu.tables["vgpu_samples"]
    per_poll: dict[tuple[str, dt.datetime], list] = collections.defaultdict(list)
    for sample in samples:
        per_poll[(sample.gpu_uuid, sample.sampled_at)].append(sample)
    profiles = collections.defaultdict(set)
    for (gpu, _), active in per_poll.items():
        assert sum(fraction[s.vgpu_type_name.removeprefix("NVIDIA ")] for s in active) <= 1
        profiles[gpu] |= {s.vgpu_type_name for s in active}
    assert all(len(types) == 1 for types in profiles.values()), "one vGPU type per GPU"
    for poll in vgpu.tables["vgpu_hosts"]:
        assert poll.active_vgpu_count == len(per_poll.get((poll.gpu_uuid, poll.sampled_at), []))
    assert {p.gpu_uuid for p in vgpu.tables["vgpu_hosts"]} == set(inventory["hv-a100-01"])


def test_vgpu_vms_come_and_go_and_are_owned(vgpu: ParseResult) -> None:
    seen: dict[tuple[str, str], list[dt.datetime]] = collections.defaultdict(list)
    for sample in vgpu.tables["vgpu_samples"]:
        seen[(sample.vm_id, sample.vm_id_type)].append(sample.sampled_at)
    policy = owners("vm")
    by_uuid = [vm for vm, kind in seen if kind == "uuid"]
    assert 4 <= len(by_uuid) <= 6
    assert all(vm in policy for vm in by_uuid)
    assert {policy[vm] for vm in by_uuid} == {"ember", "cirrus"}
    assert [vm for vm, kind in seen if kind == "domain_id"] == ["17"]
    assert "17" not in policy
    assert sum(PERIOD_START < min(t) < PERIOD_END for t in seen.values()) >= 3
    assert sum(PERIOD_START < max(t) < PERIOD_END for t in seen.values()) >= 3
    assert any(max(t) == EXTRACTED for t in seen.values())


# ---------------------------------------------------------------- NVML


def test_nvml_processes_are_those_of_the_jobs_and_pods_there(
    demo: DemoFiles, jobs: list[Row], kube: Kube, inventory: dict[str, list[str]]
) -> None:
    result = parsed(demo.nvml_files, parse_nvml_jsonl)
    by_raw_id = {job.values["jobidraw"]: job for job in jobs}
    pods = {i.uid: i for i in kube.intervals}
    holders = collections.Counter()
    for process in result.tables["nvml_processes"]:
        assert process.gpu_uuid in inventory[process.host]
        at = process.sampled_at
        if process.owner_kind == "slurm_job":
            job = by_raw_id[process.slurm_job_id]
            assert process.host in job.nodes
            assert job.time("start") <= at < (job.time("end") or OPEN_END)
            holders[(process.host, "slurm", process.slurm_job_id, at)] += 1
        else:
            assert process.owner_kind == "k8s_pod"
            pod = pods[process.pod_uid]
            assert pod.node == process.host and pod.start <= at < pod.end
            holders[(process.host, "k8s", process.pod_uid, at)] += 1
    for (host, kind, owner, _), count in holders.items():
        per_node = (
            by_raw_id[owner].gpus // len(by_raw_id[owner].nodes)
            if kind == "slurm"
            else pods[owner].count
        )
        assert count == per_node, (host, owner)
    hosts = {(h, kind) for h, kind, _, _ in holders}
    assert hosts == {
        ("hgx-h100-01", "slurm"),
        ("dgx-a100-01", "slurm"),
        ("k8s-h100-01", "k8s"),
        ("k8s-l4-ts-01", "k8s"),
    }
    per_gpu = collections.Counter(
        (p.gpu_uuid, p.sampled_at) for p in result.tables["nvml_processes"]
    )
    # time-sliced L4s: up to one process per replica holder, distinct pids on one GPU
    l4 = set(inventory["k8s-l4-ts-01"])
    shared = [n for (gpu, _), n in per_gpu.items() if gpu in l4]
    assert max(shared) > 1 and max(shared) <= 4
    assert len({(p.gpu_uuid, p.sampled_at, p.pid) for p in result.tables["nvml_processes"]}) == len(
        result.tables["nvml_processes"]
    )
    counts = {(s.gpu_uuid, s.sampled_at): s.process_count for s in result.tables["nvml_samples"]}
    assert all(counts[key] == n for key, n in per_gpu.items())
    assert sum(counts.values()) == sum(per_gpu.values())


# ---------------------------------------------------------------- Prometheus


def test_dcgm_series_name_the_pods_on_each_device(
    demo: DemoFiles, kube: Kube, inventory: dict[str, list[str]]
) -> None:
    result = parsed(demo.prometheus_files, parse_query_range)
    samples = result.tables["prometheus_gpu_samples"]
    assert {s.metric for s in samples} == {
        "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
        "DCGM_FI_DEV_FB_USED",
        "DCGM_FI_DEV_POWER_USAGE",
    }
    points = collections.Counter(
        (s.metric, s.gpu_uuid, s.gpu_instance_id, s.sampled_at) for s in samples
    )
    assert max(points.values()) == 1, "one holder per device and time"
    instances = collections.defaultdict(set)
    pods = collections.defaultdict(list)
    for interval in kube.intervals:
        pods[interval.name].append(interval)
    named = 0
    for sample in samples:
        assert sample.gpu_uuid in inventory[sample.hostname]
        if sample.gpu_instance_id is not None:
            instances[sample.gpu_uuid].add((sample.gpu_instance_id, sample.gpu_instance_profile))
        if sample.pod is None:
            continue
        named += 1
        (pod,) = pods[sample.pod]
        assert pod.node == sample.hostname and pod.start <= sample.sampled_at < pod.end
        assert pod.mig_profile == sample.gpu_instance_profile
    assert named > 0
    slices = {"1g.10gb": 1, "2g.20gb": 2, "3g.40gb": 3}
    assert len(instances) == 8
    assert all(sum(slices[p] for _, p in found) <= 7 for found in instances.values())


def test_vllm_counters_count_the_gateway_requests(demo: DemoFiles, requests_log: list) -> None:
    result = parsed(demo.prometheus_files, parse_query_range)
    samples = result.tables["prometheus_model_server_samples"]
    assert {(s.server, s.model) for s in samples} == {("vllm", "llama-3-70b")}
    series = collections.defaultdict(list)
    for sample in samples:
        series[sample.series_labels].append((sample.sampled_at, sample.value))
    last_success = 0.0
    pods = set()
    for labels, points in series.items():
        values = [value for _, value in sorted(points)]
        assert values == sorted(values), "counters only grow within a server pod"
        named = json.loads(labels)
        pods.add(named["pod"])
        if (
            named["__name__"] == "vllm:request_success_total"
            and named["finished_reason"] != "abort"
        ):
            last_success += values[-1]
    assert len(pods) >= 3 and all(p.startswith("chat-llama70b-") for p in pods)
    successes = sum(1 for r in requests_log if r.outcome == "success")
    assert 0.95 * successes <= last_success <= successes


# ---------------------------------------------------------------- gateway requests


def test_gateway_log_is_three_tenants_on_one_shared_endpoint(requests_log: list) -> None:
    assert 2000 <= len(requests_log) <= 5000
    assert {r.tenant_id for r in requests_log} == {"atlas", "cirrus", "ember"}
    assert {(r.endpoint, r.model) for r in requests_log} == {("chat-shared", "llama-3-70b")}
    outcomes = collections.Counter(r.outcome for r in requests_log)
    assert set(outcomes) == {"success", "error", "timeout", "cancelled", "rejected"}
    assert outcomes["success"] >= 0.9 * len(requests_log)
    assert all(PERIOD_START <= r.started_at < PERIOD_END for r in requests_log)
    assert owners("endpoint") == {"chat-shared": "boreal"}


# ---------------------------------------------------------------- across sources


def test_unattributed_share_is_within_the_close_tolerance(
    jobs: list[Row], kube: Kube, vgpu: ParseResult
) -> None:
    """What the close's unattributed check will see: Slurm's unmapped accounts, the
    `sandbox` namespace and the VM known only by its domain id, against all GPU-hours."""
    hours: dict[tuple[str, str], float] = collections.Counter()
    for job in jobs:
        account = job.values["account"]
        owner = "-" if account in ("scratch", "hackathon") else account
        hours[("slurm", owner)] += job.month_gpu_hours
    tenants = namespace_tenants(kube)
    for interval in kube.intervals:
        owner = tenants[interval.namespace] or "-"
        hours[("kubernetes", owner)] += gpu_equivalents(interval) * month_hours(
            interval.start, interval.end
        )
    fraction, vm_owners = weights("vgpu"), owners("vm")
    for sample in vgpu.tables["vgpu_samples"]:
        end = sample.sampled_at + dt.timedelta(seconds=sample.interval_seconds)
        share = fraction[sample.vgpu_type_name.removeprefix("NVIDIA ")]
        hours[("vgpu", vm_owners.get(sample.vm_id, "-"))] += share * month_hours(
            sample.sampled_at, end
        )
    total = sum(hours.values())
    unattributed = {source: h for (source, owner), h in hours.items() if owner == "-"}
    print("\n2026-10 GPU-hours per source and owner:")
    for (source, owner), value in sorted(hours.items()):
        print(f"  {source:11s} {owner:14s} {value:10.1f}")
    print(f"  total {total:10.1f}  unattributed {100 * sum(unattributed.values()) / total:.2f}%")
    assert set(unattributed) == {"slurm", "kubernetes", "vgpu"}
    assert 0.005 <= sum(unattributed.values()) / total <= 0.015
    slurm = sum(h for (source, _), h in hours.items() if source == "slurm")
    capacity = 64 * 744 + 24 * 744 + 8 * (744 - 7 * 24)
    assert 0.5 <= slurm / capacity <= 0.8
