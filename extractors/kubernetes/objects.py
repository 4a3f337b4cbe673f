"""Namespaces, ResourceQuotas and Nodes as rows (pure): tenant labels, GPU quotas, GPU capacity."""

from __future__ import annotations

import json

from extractors.kubernetes.fields import (
    BadRecord,
    Observation,
    ParseOptions,
    annotated_replicas,
    gpu_resource,
    mapping,
    parse_gpu_quantity,
    parse_quantity,
    quota_gpu_resource,
    read_meta,
    replicas,
    seen,
    text,
)
from extractors.kubernetes.records import (
    NAMESPACES_TABLE,
    NODES_TABLE,
    RESOURCE_QUOTAS_TABLE,
    NamespaceObservation,
    NodeResource,
    ResourceQuotaObservation,
)
from extractors.records import ParseResult

NODE_PRODUCT_LABEL = "nvidia.com/gpu.product"
NODE_SHARING_LABEL = "nvidia.com/gpu.sharing-strategy"
NODE_REPLICAS_LABEL = "nvidia.com/gpu.replicas"
NODE_MIG_STRATEGY_LABEL = "nvidia.com/mig.strategy"


def namespace_rows(result: ParseResult, observation: Observation, options: ParseOptions) -> None:
    obj = mapping(observation.obj, "object")
    meta = read_meta(obj)
    if meta.name is None:
        raise BadRecord("metadata.name", "no metadata.name")
    status = mapping(obj.get("status"), "status")
    provenance = seen(observation, meta)
    # A namespace's deletionTimestamp is when its deletion was asked for (no grace period);
    # a DELETED event without one is dated by its observation.
    deletion_at = meta.deletion_at
    if provenance["is_deleted"] and deletion_at is None:
        deletion_at = observation.observed_at
    result.add(
        NAMESPACES_TABLE,
        NamespaceObservation(
            cluster=options.cluster,
            name=meta.name,
            namespace_uid=meta.uid,
            labels=json.dumps(dict(meta.labels), sort_keys=True, separators=(",", ":")),
            tenant_label_key=options.tenant_label,
            tenant_label_value=text(meta.labels.get(options.tenant_label)),
            project_label_key=options.project_label,
            project_label_value=text(meta.labels.get(options.project_label)),
            phase=text(status.get("phase")),
            creation_at=meta.creation_at,
            deletion_at=deletion_at,
            list_resource_version=observation.list_resource_version,
            **provenance,
        ),
    )


def resource_quota_rows(
    result: ParseResult, observation: Observation, options: ParseOptions
) -> None:
    """A row per GPU resource the quota limits (status.hard, else spec.hard)."""
    obj = mapping(observation.obj, "object")
    meta = read_meta(obj)
    spec_hard = mapping(mapping(obj.get("spec"), "spec").get("hard"), "spec.hard")
    status = mapping(obj.get("status"), "status")
    status_hard = mapping(status.get("hard"), "status.hard")
    used = mapping(status.get("used"), "status.used")
    hard, hard_field = (status_hard, "status.hard") if status_hard else (spec_hard, "spec.hard")
    for resource_name in sorted(hard):
        limited = quota_gpu_resource(resource_name)
        if limited is None:
            continue
        device_resource, gpu = limited
        used_value = used.get(resource_name)
        result.add(
            RESOURCE_QUOTAS_TABLE,
            ResourceQuotaObservation(
                cluster=options.cluster,
                namespace=meta.namespace,
                quota_name=meta.name,
                quota_uid=meta.uid,
                resource_name=resource_name,
                gpu_resource_name=device_resource,
                sharing_mode=gpu.sharing_mode,
                mig_profile=gpu.mig_profile,
                hard=parse_quantity(hard[resource_name], f"{hard_field}.{resource_name}"),
                used=None
                if used_value is None
                else parse_quantity(used_value, f"status.used.{resource_name}"),
                **seen(observation, meta),
            ),
        )


def node_rows(result: ParseResult, observation: Observation, options: ParseOptions) -> None:
    """A row per GPU resource the node advertises (capacity or allocatable above 0)."""
    obj = mapping(observation.obj, "object")
    meta = read_meta(obj)
    spec = mapping(obj.get("spec"), "spec")
    status = mapping(obj.get("status"), "status")
    capacity = mapping(status.get("capacity"), "status.capacity")
    allocatable = mapping(status.get("allocatable"), "status.allocatable")
    declared = annotated_replicas(meta, options)
    if declared is None:
        declared = replicas(
            meta.labels.get(NODE_REPLICAS_LABEL), f"metadata.labels.{NODE_REPLICAS_LABEL}"
        )
    for resource_name in sorted(set(capacity) | set(allocatable)):
        gpu = gpu_resource(resource_name)
        if gpu is None:
            continue
        counts = {}
        for part, table in (("capacity", capacity), ("allocatable", allocatable)):
            value = table.get(resource_name)
            counts[part] = (
                None
                if value is None
                else parse_gpu_quantity(value, f"status.{part}.{resource_name}")
            )
        if not any(counts.values()):
            continue
        result.add(
            NODES_TABLE,
            NodeResource(
                cluster=options.cluster,
                node_name=meta.name,
                node_uid=meta.uid,
                resource_name=resource_name,
                sharing_mode=gpu.sharing_mode,
                mig_profile=gpu.mig_profile,
                capacity=counts["capacity"],
                allocatable=counts["allocatable"],
                gpu_product=text(meta.labels.get(NODE_PRODUCT_LABEL)),
                sharing_strategy=text(meta.labels.get(NODE_SHARING_LABEL)),
                mig_strategy=text(meta.labels.get(NODE_MIG_STRATEGY_LABEL)),
                timeslice_replicas=declared,
                is_unschedulable=spec.get("unschedulable") is True,
                creation_at=meta.creation_at,
                **seen(observation, meta),
            ),
        )
