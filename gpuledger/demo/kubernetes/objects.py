"""The Kubernetes API's objects as `kubectl ... -o json` shows them: pods at any instant of
their life, namespaces, GPU ResourceQuotas, nodes with GPU feature discovery's labels, and
the GPU operator's DaemonSet pods."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterable

from gpuledger.demo.common import iso_z, random_hex, random_uuid
from gpuledger.demo.constants import KUBE_NODES, L4_MODEL, TIMESLICE_REPLICAS, KubeNode
from gpuledger.demo.kubernetes.cluster import GPU_RESOURCE, KubeNamespace, node_capacity
from gpuledger.demo.kubernetes.pods import KubePod, k8s_suffix

DELETION_GRACE_S = 30
OWNER_API = {"Job": "batch/v1", "ReplicaSet": "apps/v1", "StatefulSet": "apps/v1"}


def _condition(kind: str, status: bool, at: dt.datetime, reason: str = "") -> dict[str, object]:
    condition: dict[str, object] = {
        "lastProbeTime": None,
        "lastTransitionTime": iso_z(at),
        "status": "True" if status else "False",
        "type": kind,
    }
    if reason:
        condition["reason"] = reason
    return condition


def unschedulable_message(resource: str) -> str:
    nodes = len(KUBE_NODES) + 1
    return (
        f"0/{nodes} nodes are available: 1 node(s) had untolerated taint "
        f"{{node-role.kubernetes.io/control-plane: }}, {nodes - 1} Insufficient {resource}. "
        f"preemption: 0/{nodes} nodes are available: 1 Preemption is not helpful for "
        f"scheduling, {nodes - 1} No preemption victims found for incoming pod."
    )


def pod_status(pod: KubePod, at: dt.datetime) -> dict[str, object]:
    """The pod's status as the API showed it at `at`."""
    scheduled, started, finished = pod.scheduled_at, pod.started_at, pod.finished_at
    if scheduled is None or started is None or finished is None or at < scheduled:
        return {
            "conditions": [
                {
                    **_condition("PodScheduled", False, pod.created_at, "Unschedulable"),
                    "message": unschedulable_message(pod.resource),
                }
            ],
            "phase": "Pending",
            "qosClass": "Guaranteed",
        }
    node = next(n for n in KUBE_NODES if n.name == pod.node)
    image_id = f"{pod.image.split(':')[0]}@sha256:{pod.image_digest}"
    container: dict[str, object] = {
        "image": pod.image,
        "imageID": image_id,
        "lastState": {},
        "name": pod.container,
        "restartCount": 0,
    }
    if at < started:
        phase = "Pending"
        ready_at, ready = scheduled, False
        container |= {"imageID": "", "ready": False, "started": False}
        container["state"] = {"waiting": {"reason": "ContainerCreating"}}
    elif at < finished:
        phase = "Running"
        ready_at, ready = started, True
        container |= {"containerID": f"containerd://{pod.container_id}", "ready": True}
        container |= {"started": True, "state": {"running": {"startedAt": iso_z(started)}}}
    else:
        failed = pod.ending == "Failed"
        phase = "Failed" if failed else "Succeeded"
        ready_at, ready = finished, False
        container |= {"containerID": f"containerd://{pod.container_id}", "ready": False}
        container["started"] = False
        container["state"] = {
            "terminated": {
                "containerID": f"containerd://{pod.container_id}",
                "exitCode": 1 if failed else 0,
                "finishedAt": iso_z(finished),
                "reason": "Error" if failed else "Completed",
                "startedAt": iso_z(started),
            }
        }
    done_reason = (
        ""
        if phase in ("Pending", "Running")
        else f"Pod{'Failed' if phase == 'Failed' else 'Completed'}"
    )
    return {
        "conditions": [
            _condition("Initialized", True, scheduled, done_reason),
            _condition("Ready", ready, ready_at, done_reason),
            _condition("ContainersReady", ready, ready_at, done_reason),
            _condition("PodScheduled", True, scheduled),
        ],
        "containerStatuses": [container],
        "hostIP": node.address,
        "hostIPs": [{"ip": node.address}],
        "phase": phase,
        "podIP": pod.ip,
        "podIPs": [{"ip": pod.ip}],
        "qosClass": "Guaranteed",
        "startTime": iso_z(scheduled),
    }


def pod_object(pod: KubePod, at: dt.datetime, resource_version: int) -> dict[str, object]:
    """The pod as the API served it at `at`."""
    metadata: dict[str, object] = {
        "creationTimestamp": iso_z(pod.created_at),
        "labels": dict(pod.labels),
        "name": pod.name,
        "namespace": pod.namespace,
        "ownerReferences": [
            {
                "apiVersion": OWNER_API[pod.owner_kind],
                "blockOwnerDeletion": True,
                "controller": True,
                "kind": pod.owner_kind,
                "name": pod.owner_name,
                "uid": pod.owner_uid,
            }
        ],
        "resourceVersion": str(resource_version),
        "uid": pod.uid,
    }
    if pod.annotations:
        metadata["annotations"] = dict(pod.annotations)
    deletion = pod.deletion_requested_at
    if deletion is not None and deletion <= at:
        metadata["deletionGracePeriodSeconds"] = DELETION_GRACE_S
        metadata["deletionTimestamp"] = iso_z(deletion + dt.timedelta(seconds=DELETION_GRACE_S))
    resources = {
        "cpu": str(pod.cpu * pod.count),
        "memory": f"{pod.memory_gi * pod.count}Gi",
        pod.resource: str(pod.count),
    }
    spec: dict[str, object] = {
        "containers": [
            {
                "image": pod.image,
                "imagePullPolicy": "IfNotPresent",
                "name": pod.container,
                "resources": {"limits": resources, "requests": dict(resources)},
            }
        ],
        "priority": 0,
        "restartPolicy": "Never" if pod.owner_kind == "Job" else "Always",
        "schedulerName": "default-scheduler",
        "serviceAccountName": "default",
        "terminationGracePeriodSeconds": DELETION_GRACE_S,
        "tolerations": [{"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}],
    }
    if pod.pinned and pod.node is not None:
        spec["nodeSelector"] = {"kubernetes.io/hostname": pod.node}
    if pod.scheduled_at is not None and pod.scheduled_at <= at:
        spec["nodeName"] = pod.node
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": spec,
        "status": pod_status(pod, at),
    }


def namespace_object(
    name: str, labels: Iterable[tuple[str, str]], created: dt.datetime, uid: str, version: int
) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "creationTimestamp": iso_z(created),
            "labels": {"kubernetes.io/metadata.name": name, **dict(labels)},
            "name": name,
            "resourceVersion": str(version),
            "uid": uid,
        },
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }


def quota_object(
    namespace: KubeNamespace,
    hard: dict[str, int],
    used: dict[str, int],
    created: dt.datetime,
    uid: str,
    version: int,
) -> dict[str, object]:
    limits = {f"requests.{resource}": str(count) for resource, count in sorted(hard.items())}
    in_use = {f"requests.{resource}": str(used.get(resource, 0)) for resource in sorted(hard)}
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {
            "creationTimestamp": iso_z(created),
            "name": "gpu-quota",
            "namespace": namespace.name,
            "resourceVersion": str(version),
            "uid": uid,
        },
        "spec": {"hard": limits},
        "status": {"hard": dict(limits), "used": in_use},
    }


def node_object(
    node: KubeNode | None, name: str, created: dt.datetime, uid: str, version: int
) -> dict[str, object]:
    """A node with the labels GPU feature discovery puts on it (no GPUs: the control plane)."""
    labels = {
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
    }
    resources = {"cpu": "128", "memory": "2113407940Ki", "pods": "110"}
    spec: dict[str, object] = {}
    if node is None:
        labels["node-role.kubernetes.io/control-plane"] = ""
        resources = {"cpu": "16", "memory": "65842392Ki", "pods": "110"}
        spec["taints"] = [{"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"}]
    else:
        labels |= {
            "nvidia.com/gpu.count": str(node.gpus),
            "nvidia.com/gpu.memory": str(node.memory_mib),
            "nvidia.com/gpu.present": "true",
            "nvidia.com/gpu.product": node.product,
            "nvidia.com/gpu.replicas": str(
                TIMESLICE_REPLICAS if node.sharing == "timeslice" else 1
            ),
            "nvidia.com/gpu.sharing-strategy": "time-slicing"
            if node.sharing == "timeslice"
            else "none",
            "nvidia.com/mig.capable": str(node.gpu_model != L4_MODEL).lower(),
            "nvidia.com/mig.strategy": "mixed" if node.sharing == "mig" else "single",
        }
        if node.sharing == "mig":
            labels |= {
                "nvidia.com/mig.config": "all-balanced",
                "nvidia.com/mig.config.state": "success",
            }
            resources[GPU_RESOURCE] = "0"
        resources |= {resource: str(count) for resource, count in node_capacity(node).items()}
    allocatable = dict(resources)
    allocatable["cpu"] = f"{int(resources['cpu']) * 1000 - 500}m"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "creationTimestamp": iso_z(created),
            "labels": labels,
            "name": name,
            "resourceVersion": str(version),
            "uid": uid,
        },
        "spec": spec,
        "status": {
            "addresses": [{"address": name, "type": "Hostname"}],
            "allocatable": allocatable,
            "capacity": resources,
            "nodeInfo": {
                "architecture": "amd64",
                "containerRuntimeVersion": "containerd://1.7.22",
                "kernelVersion": "5.15.0-122-generic",
                "kubeletVersion": "v1.31.2",
                "operatingSystem": "linux",
                "osImage": "Ubuntu 22.04.5 LTS",
            },
        },
    }


def daemon_pod_object(
    rng: random.Random, daemon: str, image: str, node: KubeNode, started: dt.datetime, version: int
) -> dict[str, object]:
    """A GPU operator DaemonSet's pod on a GPU node: no GPU requests (lands no rows)."""
    name = f"{daemon}-{k8s_suffix(rng, 5)}"
    container_id = random_hex(rng, 64)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "creationTimestamp": iso_z(started),
            "labels": {"app": daemon},
            "name": name,
            "namespace": "gpu-operator",
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "blockOwnerDeletion": True,
                    "controller": True,
                    "kind": "DaemonSet",
                    "name": daemon,
                    "uid": random_uuid(rng),
                }
            ],
            "resourceVersion": str(version),
            "uid": random_uuid(rng),
        },
        "spec": {
            "containers": [
                {
                    "image": image,
                    "name": daemon,
                    "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                }
            ],
            "nodeName": node.name,
            "restartPolicy": "Always",
        },
        "status": {
            "conditions": [_condition("Ready", True, started)],
            "containerStatuses": [
                {
                    "containerID": f"containerd://{container_id}",
                    "image": image,
                    "name": daemon,
                    "ready": True,
                    "restartCount": 0,
                    "started": True,
                    "state": {"running": {"startedAt": iso_z(started)}},
                }
            ],
            "hostIP": node.address,
            "phase": "Running",
            "qosClass": "Burstable",
            "startTime": iso_z(started),
        },
    }
