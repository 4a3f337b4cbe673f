"""`generate`: every source's files of one period, written as the deployment's extractors
would have captured them, each dated by the extraction instant."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from gpuledger.demo.common import file_text, write_file
from gpuledger.demo.constants import DEMO_PERIOD, VGPU_HOST, make_window
from gpuledger.demo.inventory import (
    inventory_csv,
    inventory_rows,
    make_fleet,
    other_nodes,
    uuids_by_node,
)
from gpuledger.demo.kubernetes.cluster import CHAT_DEPLOYMENT
from gpuledger.demo.kubernetes.kubectl import (
    ResourceVersions,
    kubectl_list,
    kubectl_namespaces,
    kubectl_watch,
)
from gpuledger.demo.kubernetes.pods import kubernetes_workload, pod_holdings
from gpuledger.demo.nvml import nvml_files
from gpuledger.demo.prometheus import dcgm_responses, vllm_responses
from gpuledger.demo.requests import ENDPOINT, gateway_requests, requests_jsonl
from gpuledger.demo.slurm.jobs import build_workload
from gpuledger.demo.slurm.sacct import sacct_files
from gpuledger.demo.slurm.scheduler import schedule
from gpuledger.demo.vgpu import vgpu_jsonl


@dataclass(frozen=True)
class DemoFiles:
    """What `generate` wrote, per source (sacct files and Kubernetes files oldest first), and
    when the deployment's extractors read the sources (what `--extracted-at` says of each
    file): the extraction, but for the files `read_earlier` names (the namespaces listed when
    the pod watch started)."""

    extracted_at: dt.datetime
    read_earlier: Mapping[Path, dt.datetime]
    inventory: Path
    sacct_files: tuple[Path, ...]
    kubernetes_files: tuple[Path, ...]
    vgpu_files: tuple[Path, ...]
    nvml_files: tuple[Path, ...]
    prometheus_files: tuple[Path, ...]
    request_files: tuple[Path, ...]

    def extracted_at_of(self, path: Path) -> dt.datetime:
        return self.read_earlier.get(path, self.extracted_at)

    def all_files(self) -> tuple[Path, ...]:
        return (
            self.inventory,
            *self.sacct_files,
            *self.kubernetes_files,
            *self.vgpu_files,
            *self.nvml_files,
            *self.prometheus_files,
            *self.request_files,
        )


def generate(out_dir: Path, period: str = DEMO_PERIOD, seed: int = 7) -> DemoFiles:
    """Write every source's files for `period` into `out_dir` (see the package doc)."""
    window = make_window(period)
    fleet = make_fleet(window)
    rng = random.Random(seed)
    jobs = build_workload(rng, window)
    placements = schedule(jobs, fleet, window.extracted_at)
    weekly = sacct_files(rng, jobs, placements, window)
    inventory = inventory_rows((*fleet, *other_nodes(window)), seed)
    uuids = uuids_by_node(inventory)
    pods = kubernetes_workload(random.Random(f"{seed}-kubernetes"), window)
    holdings = pod_holdings(pods, window.extracted_at)
    servers = [pod for pod in pods if ("app", CHAT_DEPLOYMENT) in pod.labels]
    requests = gateway_requests(random.Random(f"{seed}-requests"), window, servers)
    versions = ResourceVersions(48_000_000)
    watch, last_versions = kubectl_watch(pods, window, versions)
    listing = kubectl_list(
        random.Random(f"{seed}-kubernetes-list"), pods, window, versions, last_versions
    )
    vgpu = vgpu_jsonl(random.Random(f"{seed}-vgpu"), window, uuids[VGPU_HOST])
    prometheus = dcgm_responses(random.Random(f"{seed}-dcgm"), window, uuids, holdings)
    prometheus |= vllm_responses(window, servers, requests)

    out_dir.mkdir(parents=True, exist_ok=True)

    def write(name: str, text: str) -> Path:
        return write_file(out_dir, name, text, window.extracted_at)

    nvml = nvml_files(seed, window, uuids, (jobs, placements), holdings)
    watch_start = write_file(
        out_dir,
        "kubectl-get-namespaces-watch-start.json",
        kubectl_namespaces(listing),
        window.first_submit,
    )
    return DemoFiles(
        extracted_at=window.extracted_at,
        read_earlier={watch_start: window.first_submit},
        inventory=write("inventory.csv", inventory_csv(inventory)),
        sacct_files=tuple(write(name, file_text(lines)) for name, lines in weekly.items()),
        kubernetes_files=(
            watch_start,
            write("kubectl-get-pods-watch.jsonl", watch),
            write("kubectl-get-pods-namespaces-resourcequotas-nodes.json", listing),
        ),
        vgpu_files=(write(f"vgpu-{VGPU_HOST}.jsonl", vgpu),),
        nvml_files=tuple(write(name, text) for name, text in nvml.items()),
        prometheus_files=tuple(
            write(f"prometheus-{metric.replace(':', '_')}.json", text)
            for metric, text in prometheus.items()
        ),
        request_files=(write(f"gateway-{ENDPOINT}-{period}.jsonl", requests_jsonl(requests)),),
    )
