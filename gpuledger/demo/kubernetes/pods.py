"""The Kubernetes cluster's pods: every rollout of the Deployments, the Jobs and notebooks
the namespaces' streams create, bound by a scheduler that never over-commits a device, and
who held each device when."""

from __future__ import annotations

import bisect
import datetime as dt
import heapq
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from gpuledger.demo.common import (
    HOUR,
    Holding,
    Timeline,
    dispatch,
    instants,
    log_uniform,
    poisson_times,
    random_hex,
    random_uuid,
    weighted,
)
from gpuledger.demo.constants import KUBE_NODES, Window
from gpuledger.demo.kubernetes.cluster import (
    DEPLOYMENTS,
    POD_STREAMS,
    SHARED_RESOURCE,
    Deployment,
    PodStream,
    Slot,
    node_slots,
)

KUBE_DRAIN_AFTER = dt.timedelta(hours=4)
STOP_S = 4  # a deleted pod's container stops this long after the deletion request
K8S_NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789"


def k8s_suffix(rng: random.Random, length: int) -> str:
    """A generated-name suffix as Kubernetes writes them (`-x7k2p`)."""
    return "".join(rng.choice(K8S_NAME_CHARS) for _ in range(length))


def job_labels(job: str) -> tuple[tuple[str, str], ...]:
    """The labels the Job controller puts on its pods."""
    return (("batch.kubernetes.io/job-name", job), ("job-name", job))


@dataclass(frozen=True)
class KubePod:
    """One pod: what its controller created, and where and when it ran (`slots` empty and
    `scheduled_at` None while unscheduled). Its container starts `pull_s` after the binding
    and runs `runtime_s`; a Job's pod then ends (Succeeded or Failed), any other pod is
    deleted then and its container stops STOP_S later."""

    namespace: str
    name: str
    uid: str
    owner_kind: str  # Job, ReplicaSet or StatefulSet
    owner_name: str
    owner_uid: str
    container: str
    image: str
    image_digest: str
    container_id: str
    resource: str
    count: int
    cpu: int
    memory_gi: int
    labels: tuple[tuple[str, str], ...]
    annotations: tuple[tuple[str, str], ...]
    created_at: dt.datetime
    pull_s: int
    runtime_s: int
    ending: str  # Succeeded, Failed or Deleted
    pinned: bool = False
    slots: tuple[Slot, ...] = ()
    scheduled_at: dt.datetime | None = None

    @property
    def node(self) -> str | None:
        return self.slots[0].node if self.slots else None

    @property
    def started_at(self) -> dt.datetime | None:
        return (
            None
            if self.scheduled_at is None
            else self.scheduled_at + dt.timedelta(seconds=self.pull_s)
        )

    @property
    def deletion_requested_at(self) -> dt.datetime | None:
        if self.started_at is None or self.ending != "Deleted":
            return None
        return self.started_at + dt.timedelta(seconds=self.runtime_s)

    @property
    def finished_at(self) -> dt.datetime | None:
        """When the container stopped (maybe after the extraction); None if never started."""
        if self.started_at is None:
            return None
        stop = STOP_S if self.ending == "Deleted" else 0
        return self.started_at + dt.timedelta(seconds=self.runtime_s + stop)

    @property
    def ip(self) -> str:
        node = next((i for i, n in enumerate(KUBE_NODES) if n.name == self.node), 9)
        return f"10.244.{node + 1}.{int(self.uid[:4], 16) % 250 + 2}"


def make_pod(
    rng: random.Random,
    *,
    namespace: str,
    name: str,
    owner: tuple[str, str, str],
    template: tuple[str, str, str, int, int],
    count: int,
    labels: tuple[tuple[str, str], ...],
    annotations: tuple[tuple[str, str], ...],
    created_at: dt.datetime,
    runtime_s: int,
    ending: str,
) -> KubePod:
    """A pod with its ids drawn; `owner` is (kind, name, uid), `template` (container, image,
    resource, cpu per device, memory GiB per device)."""
    container, image, resource, cpu, memory_gi = template
    return KubePod(
        namespace=namespace,
        name=name,
        uid=random_uuid(rng),
        owner_kind=owner[0],
        owner_name=owner[1],
        owner_uid=owner[2],
        container=container,
        image=image,
        image_digest=random_hex(rng, 64),
        container_id=random_hex(rng, 64),
        resource=resource,
        count=count,
        cpu=cpu,
        memory_gi=memory_gi,
        labels=labels,
        annotations=annotations,
        created_at=created_at,
        pull_s=rng.randrange(4, 150),
        runtime_s=max(60, int(runtime_s)),
        ending=ending,
    )


def stream_pods(rng: random.Random, stream: PodStream, window: Window) -> list[KubePod]:
    pods = []
    template = (stream.container, stream.image, stream.resource, stream.cpu, stream.memory_gi)
    for created in poisson_times(
        rng, stream.per_day, window.first_submit, window.extracted_at, stream.diurnal
    ):
        base = rng.choice(stream.names)
        count = weighted(rng, stream.counts)
        runtime = log_uniform(rng, *stream.runtime_h) * HOUR
        owner_name = f"{base}-{k8s_suffix(rng, 5)}"
        if stream.controller == "Job":
            failed = rng.random() < stream.failure_share
            runtime *= rng.uniform(0.02, 0.8) if failed else 1.0
            name = f"{owner_name}-{k8s_suffix(rng, 5)}"
            labels = job_labels(owner_name)
            ending = "Failed" if failed else "Succeeded"
        else:
            name = f"{owner_name}-0"
            labels = (("app", base), ("statefulset.kubernetes.io/pod-name", name))
            ending = "Deleted"
        pods.append(
            make_pod(
                rng,
                namespace=stream.namespace,
                name=name,
                owner=(stream.controller, owner_name, random_uuid(rng)),
                template=template,
                count=count,
                labels=labels,
                annotations=stream.annotations,
                created_at=created,
                runtime_s=int(runtime),
                ending=ending,
            )
        )
    return pods


def anchor_pods(rng: random.Random, window: Window) -> list[KubePod]:
    """Two 8-GPU training Jobs near the extraction: only one node can hold either (the chat
    server keeps half of the other), so at least one of them is Pending when listed."""
    train = POD_STREAMS[0]
    template = (train.container, train.image, train.resource, train.cpu, train.memory_gi)
    pods = []
    for hours_before, hours, base in ((20, 48, "pretrain-13b"), (3, 30, "pretrain-13b-v2")):
        job = f"{base}-{k8s_suffix(rng, 5)}"
        pods.append(
            make_pod(
                rng,
                namespace=train.namespace,
                name=f"{job}-{k8s_suffix(rng, 5)}",
                owner=("Job", job, random_uuid(rng)),
                template=template,
                count=8,
                labels=job_labels(job),
                annotations=(),
                created_at=window.extracted_at - dt.timedelta(hours=hours_before),
                runtime_s=hours * HOUR,
                ending="Succeeded",
            )
        )
    return pods


def deployment_pods(rng: random.Random, deployment: Deployment, window: Window) -> list[KubePod]:
    """The pods of every rollout; a replica's successor is created right after it stopped."""
    rollouts = [window.first_submit + dt.timedelta(days=1, seconds=rng.randrange(0, 12 * HOUR))]
    while rollouts[-1] < window.extracted_at:
        lifetime = rng.uniform(*deployment.lifetime_h) * HOUR
        rollouts.append(rollouts[-1] + dt.timedelta(seconds=int(lifetime)))
    pods = []
    replica_sets = [(k8s_suffix(rng, 10), random_uuid(rng)) for _ in rollouts[:-1]]
    for replica, slots in enumerate(deployment.replicas):
        stagger = dt.timedelta(minutes=4 * replica)
        created = rollouts[0] + stagger
        for (template_hash, rs_uid), deleted in zip(replica_sets, rollouts[1:], strict=True):
            rs_name = f"{deployment.name}-{template_hash}"
            pod = make_pod(
                rng,
                namespace=deployment.namespace,
                name=f"{rs_name}-{k8s_suffix(rng, 5)}",
                owner=("ReplicaSet", rs_name, rs_uid),
                template=(
                    deployment.container,
                    deployment.image,
                    slots[0].resource,
                    deployment.cpu,
                    deployment.memory_gi,
                ),
                count=len(slots),
                labels=(("app", deployment.name), ("pod-template-hash", template_hash)),
                annotations=(),
                created_at=created,
                runtime_s=HOUR,  # set below, once the start is known
                ending="Deleted",
            )
            scheduled = created + dt.timedelta(seconds=1)
            started = scheduled + dt.timedelta(seconds=pod.pull_s)
            runtime = int((deleted + stagger - started).total_seconds())
            pod = replace(pod, slots=slots, scheduled_at=scheduled, runtime_s=runtime, pinned=True)
            pods.append(pod)
            created = (pod.finished_at or deleted) + dt.timedelta(seconds=1)
    return pods


def _slot_order(slot: Slot) -> tuple[int, int]:
    """Free devices are taken instance first, then GPU: MIG pods spread over the GPUs.
    Time-slice replicas are bin-packed, a GPU's replicas before the next GPU's, so pods of
    different tenants share an L4 (the NVML sampler then sees each one's processes)."""
    if slot.resource == SHARED_RESOURCE:
        return (slot.gpu_index, slot.instance)
    return (slot.instance, slot.gpu_index)


def schedule_pods(
    pods: Sequence[KubePod], slots: Sequence[Slot], until: dt.datetime
) -> list[KubePod]:
    """Bind each pod at the first event where one node has enough free devices of its
    resource (best fit); a pod that waited KUBE_DRAIN_AFTER keeps the emptiest node's
    devices from others. Devices are held from the binding until the container stopped."""
    free: dict[tuple[str, str], list[Slot]] = {}
    for slot in sorted(slots, key=_slot_order):
        free.setdefault((slot.node, slot.resource), []).append(slot)
    events = [(pod.created_at, 1, index) for index, pod in enumerate(pods)]
    heapq.heapify(events)
    queue: list[tuple[tuple[dt.datetime, int], int]] = []
    placed: dict[int, KubePod] = {}

    def place(index: int, now: dt.datetime, drained: set[str]) -> bool:
        pod = pods[index]
        keys = [k for k in free if k[1] == pod.resource and k[0] not in drained]
        fitting = [k for k in keys if len(free[k]) >= pod.count]
        if not fitting:
            if now - pod.created_at >= KUBE_DRAIN_AFTER and keys:
                drained.add(max(keys, key=lambda k: (len(free[k]), k[0]))[0])
            return False
        key = min(fitting, key=lambda k: (len(free[k]), k[0]))
        taken = tuple(free[key][: pod.count])
        del free[key][: pod.count]
        placed[index] = replace(pod, slots=taken, scheduled_at=now)
        heapq.heappush(events, (placed[index].finished_at or now, 0, index))
        return True

    for now, batch in instants(events, until):
        for _, kind, index in batch:
            if kind == 0:
                for slot in placed[index].slots:
                    bisect.insort(free[(slot.node, slot.resource)], slot, key=_slot_order)
            else:
                bisect.insort(queue, ((pods[index].created_at, index), index))
        dispatch(queue, now, place)
    return [placed.get(index, pod) for index, pod in enumerate(pods)]


def kubernetes_workload(rng: random.Random, window: Window) -> list[KubePod]:
    """Every pod of the window (created before the extraction), in creation order."""
    pinned = [pod for d in DEPLOYMENTS for pod in deployment_pods(rng, d, window)]
    batch = [pod for stream in POD_STREAMS for pod in stream_pods(rng, stream, window)]
    batch += anchor_pods(rng, window)
    batch.sort(key=lambda pod: (pod.created_at, pod.uid))
    reserved = {slot for d in DEPLOYMENTS for replica in d.replicas for slot in replica}
    slots = [s for node in KUBE_NODES for s in node_slots(node) if s not in reserved]
    pods = pinned + schedule_pods(batch, slots, window.extracted_at)
    return sorted(
        (pod for pod in pods if pod.created_at < window.extracted_at),
        key=lambda pod: (pod.created_at, pod.uid),
    )


def pod_holdings(pods: Iterable[KubePod], cut: dt.datetime) -> dict[Slot, Timeline]:
    """Each device's holders, [container start, container stop) as known at `cut`."""
    by_slot: dict[Slot, list[Holding]] = {}
    for pod in pods:
        start, stop = pod.started_at, pod.finished_at
        if start is None or start > cut:
            continue
        end = stop if stop is not None and stop <= cut else None
        for slot in pod.slots:
            by_slot.setdefault(slot, []).append(Holding(start, end, pod))
    return {slot: Timeline.of(holdings) for slot, holdings in by_slot.items()}
