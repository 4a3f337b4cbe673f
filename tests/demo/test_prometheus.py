"""The Prometheus responses: dcgm-exporter's series name the pod on each device, and the vLLM
counters count the gateway's requests."""

from __future__ import annotations

import collections
import json

from gpuledger.demo import DemoFiles
from tests.demo.evidence import Kube, parsed
from tests.extractors.prometheus_samples import gpu_rows, parse_text, server_rows


def test_dcgm_series_name_the_pods_on_each_device(
    demo: DemoFiles, kube: Kube, inventory: dict[str, list[str]]
) -> None:
    samples = gpu_rows(parsed(demo.prometheus_files, parse_text))
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
    samples = server_rows(parsed(demo.prometheus_files, parse_text))
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
