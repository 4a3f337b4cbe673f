"""The Kubernetes cluster `demo-k8s` as configured: the devices its nodes advertise (whole
H100s, an A100 node in MIG mode, an L4 node time-sliced), its namespaces and their GPU
quotas, and the workloads run there: Jobs and notebooks per namespace, and the serving
Deployments pinned to their devices."""

from __future__ import annotations

import collections
from dataclasses import dataclass

from gpuledger.demo.constants import MIG_LAYOUT, TIMESLICE_REPLICAS, KubeNode

GPU_RESOURCE = "nvidia.com/gpu"
SHARED_RESOURCE = "nvidia.com/gpu.shared"
MIG_SLICES = {"3g.40gb": 3, "2g.20gb": 2, "1g.10gb": 1}
MIG_MEMORY_MIB = {"3g.40gb": 40192, "2g.20gb": 19968, "1g.10gb": 9728}
TENANT_LABEL = "gpuledger.io/tenant"
PROJECT_LABEL = "gpuledger.io/project"
REPLICAS_ANNOTATION = "gpuledger.io/timeslice-replicas"


def mig_resource(profile: str) -> str:
    return f"nvidia.com/mig-{profile}"


@dataclass(frozen=True)
class Slot:
    """One schedulable device: a whole GPU, a MIG instance (`instance` is its GPU instance
    id) or a time-slice replica (`instance` is the replica number)."""

    node: str
    resource: str
    gpu_index: int
    instance: int = 0


def node_slots(node: KubeNode) -> list[Slot]:
    """The devices `node` advertises, GPU by GPU."""
    if node.sharing == "mig":
        return [
            Slot(node.name, mig_resource(profile), gpu, instance)
            for gpu in range(node.gpus)
            for profile, instance in MIG_LAYOUT
        ]
    if node.sharing == "timeslice":
        return [
            Slot(node.name, SHARED_RESOURCE, gpu, replica)
            for gpu in range(node.gpus)
            for replica in range(TIMESLICE_REPLICAS)
        ]
    return [Slot(node.name, GPU_RESOURCE, gpu) for gpu in range(node.gpus)]


def node_capacity(node: KubeNode) -> dict[str, int]:
    counts: dict[str, int] = collections.Counter(slot.resource for slot in node_slots(node))
    return dict(sorted(counts.items()))


@dataclass(frozen=True)
class KubeNamespace:
    name: str
    labels: tuple[tuple[str, str], ...]
    quota: tuple[tuple[str, int], ...]  # the GPU ResourceQuota's nominal hard limits


KUBE_NAMESPACES = (
    KubeNamespace(
        "ml-serving",
        ((TENANT_LABEL, "boreal"), (PROJECT_LABEL, "boreal-chat")),
        ((GPU_RESOURCE, 4), (SHARED_RESOURCE, 2)),
    ),
    KubeNamespace(
        "research-train",
        ((TENANT_LABEL, "atlas"), (PROJECT_LABEL, "atlas-foundation")),
        ((GPU_RESOURCE, 12),),
    ),
    KubeNamespace(
        "vision",
        ((TENANT_LABEL, "delta"), (PROJECT_LABEL, "delta-perception")),
        ((mig_resource("3g.40gb"), 6), (mig_resource("2g.20gb"), 6)),
    ),
    # No tenant label: policy/demo/ownership.csv gives it to cirrus.
    KubeNamespace(
        "nlp-notebooks",
        (("team", "nlp"),),
        ((mig_resource("1g.10gb"), 12), (SHARED_RESOURCE, 6)),
    ),
    # Labelled, but with no tenant, and in no policy: its usage is unattributed.
    KubeNamespace(
        "sandbox", (("purpose", "experiments"), ("team", "platform-dev")), ((SHARED_RESOURCE, 4),)
    ),
)
SYSTEM_NAMESPACES = ("default", "gpu-operator", "kube-system")


@dataclass(frozen=True)
class PodStream:
    """A namespace's batch work: Jobs (one pod, Succeeded or Failed) or notebooks (a
    StatefulSet of one pod, deleted when its user is done)."""

    namespace: str
    controller: str  # Job or StatefulSet
    names: tuple[str, ...]
    container: str
    image: str
    resource: str
    counts: tuple[tuple[int, float], ...]  # (devices per pod, weight)
    per_day: float
    runtime_h: tuple[float, float]  # log-uniform bounds
    cpu: int  # per device
    memory_gi: int  # per device
    failure_share: float = 0.0
    diurnal: bool = False
    annotations: tuple[tuple[str, str], ...] = ()


PYTORCH = "nvcr.io/nvidia/pytorch:24.08-py3"
POD_STREAMS = (
    PodStream(
        namespace="research-train",
        controller="Job",
        names=("pretrain-7b", "sft-llama", "dpo-run", "moe-ablation"),
        container="trainer",
        image=PYTORCH,
        resource=GPU_RESOURCE,
        counts=((4, 0.4), (8, 0.6)),
        per_day=0.9,
        runtime_h=(3, 36),
        cpu=12,
        memory_gi=120,
        failure_share=0.12,
    ),
    PodStream(
        namespace="research-train",
        controller="Job",
        names=("eval-harness", "mmlu-eval", "probe"),
        container="eval",
        image=PYTORCH,
        resource=GPU_RESOURCE,
        counts=((1, 0.6), (2, 0.4)),
        per_day=2.0,
        runtime_h=(0.3, 4),
        cpu=8,
        memory_gi=64,
        failure_share=0.06,
        diurnal=True,
    ),
    PodStream(
        namespace="vision",
        controller="Job",
        names=("detector-train", "segformer-ft"),
        container="trainer",
        image=PYTORCH,
        resource=mig_resource("3g.40gb"),
        counts=((1, 1.0),),
        per_day=1.2,
        runtime_h=(2, 16),
        cpu=8,
        memory_gi=48,
        failure_share=0.08,
    ),
    PodStream(
        namespace="vision",
        controller="Job",
        names=("label-assist", "video-embed"),
        container="worker",
        image="nvcr.io/nvidia/tritonserver:24.08-py3",
        resource=mig_resource("2g.20gb"),
        counts=((1, 1.0),),
        per_day=1.5,
        runtime_h=(0.5, 6),
        cpu=4,
        memory_gi=24,
        failure_share=0.04,
        diurnal=True,
    ),
    PodStream(
        namespace="nlp-notebooks",
        controller="StatefulSet",
        names=("nb-carol", "nb-chen", "nb-cleo"),
        container="notebook",
        image="quay.io/jupyter/pytorch-notebook:cuda12-2024-10-07",
        resource=mig_resource("1g.10gb"),
        counts=((1, 1.0),),
        per_day=2.0,
        runtime_h=(1, 9),
        cpu=2,
        memory_gi=16,
        diurnal=True,
    ),
    PodStream(
        namespace="nlp-notebooks",
        controller="Job",
        names=("rerank-eval", "qa-batch"),
        container="eval",
        image=PYTORCH,
        resource=SHARED_RESOURCE,
        counts=((1, 1.0),),
        per_day=1.5,
        runtime_h=(0.25, 3),
        cpu=4,
        memory_gi=16,
        failure_share=0.05,
    ),
    PodStream(
        namespace="sandbox",
        controller="StatefulSet",
        names=("dev-frank", "dev-grace"),
        container="shell",
        image="nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04",
        resource=SHARED_RESOURCE,
        counts=((1, 1.0),),
        per_day=0.8,
        runtime_h=(0.5, 5),
        cpu=2,
        memory_gi=8,
        annotations=((REPLICAS_ANNOTATION, str(TIMESLICE_REPLICAS)),),
    ),
)


@dataclass(frozen=True)
class Deployment:
    """A server pinned to its devices (a nodeSelector and a dedicated device set) and
    redeployed every few days, replica by replica (each replica's pod is deleted, then
    its successor created)."""

    namespace: str
    name: str
    container: str
    image: str
    replicas: tuple[tuple[Slot, ...], ...]  # each replica's devices
    lifetime_h: tuple[float, float]
    cpu: int  # per device
    memory_gi: int  # per device


CHAT_DEPLOYMENT = "chat-llama70b"
DEPLOYMENTS = (
    Deployment(
        namespace="ml-serving",
        name=CHAT_DEPLOYMENT,
        container="vllm",
        image="vllm/vllm-openai:v0.6.3.post1",
        replicas=(tuple(Slot("k8s-h100-01", GPU_RESOURCE, gpu) for gpu in range(4)),),
        lifetime_h=(96, 216),
        cpu=12,
        memory_gi=120,
    ),
    Deployment(
        namespace="ml-serving",
        name="embedder",
        container="tei",
        image="ghcr.io/huggingface/text-embeddings-inference:1.5",
        replicas=(
            (Slot("k8s-l4-ts-01", SHARED_RESOURCE, 0),),
            (Slot("k8s-l4-ts-01", SHARED_RESOURCE, 1),),
        ),
        lifetime_h=(120, 300),
        cpu=4,
        memory_gi=16,
    ),
    Deployment(
        namespace="vision",
        name="vision-infer",
        container="triton",
        image="nvcr.io/nvidia/tritonserver:24.08-py3",
        replicas=(
            (Slot("k8s-a100-mig-01", mig_resource("3g.40gb"), 0, 1),),
            (Slot("k8s-a100-mig-01", mig_resource("3g.40gb"), 1, 1),),
        ),
        lifetime_h=(72, 240),
        cpu=8,
        memory_gi=48,
    ),
)
