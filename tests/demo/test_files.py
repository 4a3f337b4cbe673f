"""Every source's files: deterministic, small and fast to write, dated by the extraction,
and every record through the real parser; the inventory lists the whole fleet."""

from __future__ import annotations

import collections
import csv
import datetime as dt
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from extractors.nvml.parse import parse_nvml_jsonl
from extractors.records import ParseResult
from extractors.requests.parse import parse_requests_jsonl
from extractors.slurm.parse import parse_sacct_text
from extractors.vgpu.parse import parse_vgpu_jsonl
from gpuledger.demo import DemoFiles, generate
from gpuledger.demo.constants import FIRST_SUBMIT
from tests.demo.evidence import EXTRACTED, file_bytes, parsed, policy_rows
from tests.extractors.prometheus_samples import parse_text

WATCH_START = FIRST_SUBMIT.replace(tzinfo=None)  # when kubectl listed the namespaces


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


def test_every_file_bears_the_extraction_instant_but_the_watch_start_listing(
    demo: DemoFiles,
) -> None:
    def seconds(instant: dt.datetime) -> float:
        return (instant - dt.datetime(1970, 1, 1)).total_seconds()

    early = demo.kubernetes_files[0]
    assert early.name == "kubectl-get-namespaces-watch-start.json"
    assert early.stat().st_mtime == seconds(WATCH_START)
    others = [p for p in demo.all_files() if p != early]
    assert {p.stat().st_mtime for p in others} == {seconds(EXTRACTED)}


def test_namespaces_are_listed_unchanged_before_the_first_pod(demo: DemoFiles) -> None:
    # a tenant label owns a namespace from its first observation only: the watch-start
    # listing holds the extraction's namespace objects, and no pod of the window is older
    early, watch, listing = demo.kubernetes_files
    namespaces = json.loads(early.read_text())["items"]
    extracted = [i for i in json.loads(listing.read_text())["items"] if i["kind"] == "Namespace"]
    assert namespaces == extracted and len(namespaces) == 8
    first_pod = min(
        json.loads(line)["object"]["metadata"]["creationTimestamp"]
        for line in watch.read_text().splitlines()
    )
    assert f"{WATCH_START:%Y-%m-%dT%H:%M:%SZ}" <= first_pod


def test_files_of_every_source(demo: DemoFiles) -> None:
    assert [p.name for p in demo.sacct_files] == [
        f"sacct_2026-W{week}.txt" for week in range(39, 46)
    ]
    assert [p.name for p in demo.kubernetes_files] == [
        "kubectl-get-namespaces-watch-start.json",
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
        ("prometheus_files", parse_text),
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
