"""The NVML sampler's files: the processes are those of the Slurm jobs and pods that held
the GPUs then, one per holder (several on a time-sliced L4)."""

from __future__ import annotations

import collections

from extractors.nvml.parse import parse_nvml_jsonl
from gpuledger.demo import DemoFiles
from tests.demo.evidence import OPEN_END, Kube, Row, parsed


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
