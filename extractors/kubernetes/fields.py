"""Reading Kubernetes API objects (pure): what a parse is given, and readers of object fields.

`ParseOptions` and `Observation` are the parser's input; the readers turn one field of an
object into a value or raise `BadRecord` naming the field, which rejects the whole record:
metadata, timestamps, device counts and resource quantities, and the NVIDIA device-plugin
resource names (`nvidia.com/gpu`, `nvidia.com/mig-<profile>`, the `.shared` replicas).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypedDict

from extractors.timeparse import parse_timestamp

DEFAULT_TENANT_LABEL = "gpuledger.io/tenant"
DEFAULT_PROJECT_LABEL = "gpuledger.io/project"
DEFAULT_REPLICAS_ANNOTATION = "gpuledger.io/timeslice-replicas"

GPU_RESOURCE = "nvidia.com/gpu"
SHARED_GPU_RESOURCE = "nvidia.com/gpu.shared"
MIG_PREFIX = "nvidia.com/mig-"
SHARED_SUFFIX = ".shared"
QUOTA_PREFIXES = ("requests.", "limits.")

_WHOLE_NUMBER = re.compile(r"^\+?[0-9]+$")
_QUANTITY = re.compile(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(e[+-]?[0-9]+|[A-Za-z]{0,2})$")
_QUANTITY_SUFFIXES = {
    "": 1.0,
    "m": 1e-3,
    "k": 1e3,
    "M": 1e6,
    "G": 1e9,
    "T": 1e12,
    "P": 1e15,
    "E": 1e18,
    "Ki": 2.0**10,
    "Mi": 2.0**20,
    "Gi": 2.0**30,
    "Ti": 2.0**40,
    "Pi": 2.0**50,
    "Ei": 2.0**60,
}


class BadRecord(ValueError):
    """One record cannot be read: the field and the reason."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(reason)
        self.field = field
        self.reason = reason


@dataclass(frozen=True)
class ParseOptions:
    """What the parser needs beyond the objects; part of the batch identity."""

    cluster: str = "default"
    timeslice_replicas: int | None = None
    tenant_label: str = DEFAULT_TENANT_LABEL
    project_label: str = DEFAULT_PROJECT_LABEL
    replicas_annotation: str = DEFAULT_REPLICAS_ANNOTATION

    def fingerprint(self) -> str:
        return (
            f"cluster={self.cluster};timeslice_replicas={self.timeslice_replicas or ''};"
            f"tenant_label={self.tenant_label};project_label={self.project_label};"
            f"replicas_annotation={self.replicas_annotation}"
        )


@dataclass(frozen=True)
class Observation:
    """One object as seen once: an item of a List (event_type None) or a watch event."""

    line: int
    obj: object
    observed_at: dt.datetime | None  # None: a watch event carrying no time at all
    event_type: str | None = None
    list_resource_version: str | None = None
    kind: str | None = None  # the item kind when the object has none (items of a PodList)
    where: str = ""  # how a message names the record: "items[3]" in a List file


@dataclass(frozen=True)
class GpuResource:
    sharing_mode: str
    mig_profile: str | None


def gpu_resource(name: str) -> GpuResource | None:
    """The sharing mode of an NVIDIA device-plugin resource name; None for other resources.

    `nvidia.com/gpu` is a whole GPU, `nvidia.com/mig-<profile>` a MIG instance, and the
    `.shared` names (time-slicing or MPS with renameByDefault) a time-sliced replica.
    """
    if name == GPU_RESOURCE:
        return GpuResource("whole", None)
    if name == SHARED_GPU_RESOURCE:
        return GpuResource("timeslice", None)
    if name.startswith(MIG_PREFIX) and len(name) > len(MIG_PREFIX):
        profile = name[len(MIG_PREFIX) :]
        if profile.endswith(SHARED_SUFFIX):
            return GpuResource("timeslice", profile[: -len(SHARED_SUFFIX)])
        return GpuResource("mig", profile)
    return None


def quota_gpu_resource(name: str) -> tuple[str, GpuResource] | None:
    """The device resource a quota key limits (`requests.nvidia.com/gpu` -> `nvidia.com/gpu`)."""
    for prefix in QUOTA_PREFIXES:
        if name.startswith(prefix):
            name = name[len(prefix) :]
            break
    gpu = gpu_resource(name)
    return None if gpu is None else (name, gpu)


def parse_gpu_quantity(value: object, field: str) -> int:
    """A device count: the API writes quantities as strings ("2"); some tools write numbers."""
    if isinstance(value, bool):
        raise BadRecord(field, f"quantity {value!r} is not a whole number")
    if isinstance(value, int):
        count = value
    elif isinstance(value, float) and value.is_integer():
        count = int(value)
    elif isinstance(value, str) and _WHOLE_NUMBER.match(value.strip()):
        count = int(value.strip())
    else:
        raise BadRecord(field, f"quantity {value!r} is not a whole number of devices")
    if count < 0:
        raise BadRecord(field, f"quantity {value!r} is negative")
    return count


def parse_quantity(value: object, field: str) -> float:
    """A resource.Quantity ("4", "500m", "2Ki", "1e3") as a number."""
    if isinstance(value, bool):
        raise BadRecord(field, f"quantity {value!r} is not a number")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        match = _QUANTITY.match(value.strip())
        if match:
            number, suffix = match.groups()
            if suffix.lower().startswith("e") and suffix[1:].lstrip("+-").isdigit():
                return float(number + suffix)
            if suffix in _QUANTITY_SUFFIXES:
                return float(number) * _QUANTITY_SUFFIXES[suffix]
    raise BadRecord(field, f"quantity {value!r} is not a Kubernetes quantity")


def timestamp(value: object, field: str) -> dt.datetime | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise BadRecord(field, f"timestamp {value!r} is not text")
    try:
        return parse_timestamp(value)
    except ValueError:
        raise BadRecord(field, f"invalid timestamp {value!r}") from None


def mapping(value: object, field: str) -> Mapping[str, object]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise BadRecord(field, f"expected an object, got {type(value).__name__}")
    return value


def sequence(value: object, field: str) -> list[object]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise BadRecord(field, f"expected a list, got {type(value).__name__}")
    return value


def text(value: object) -> str | None:
    if value is None or value == "":
        return None
    return str(value)


def replicas(value: object, field: str) -> int | None:
    """Time-slice replicas per GPU; None when none are declared. `0` is what GPU feature
    discovery labels a GPU that is not time-sliced (`nvidia.com/gpu.replicas: "0"` on a MIG
    node whose full-GPU resource is gone): no time-slicing, not an error."""
    if value is None or value == "":
        return None
    return parse_gpu_quantity(value, field) or None


def annotated_replicas(meta: Meta, options: ParseOptions) -> int | None:
    """The time-slice replicas the object's replicas annotation declares; None without one."""
    annotation = options.replicas_annotation
    return replicas(meta.annotations.get(annotation), f"metadata.annotations.{annotation}")


@dataclass(frozen=True)
class Meta:
    uid: str
    name: str | None
    namespace: str | None
    creation_at: dt.datetime | None
    deletion_at: dt.datetime | None
    resource_version: str | None
    labels: Mapping[str, object]
    annotations: Mapping[str, object]
    owner: tuple[str | None, str | None, str | None]


def read_meta(obj: Mapping[str, object]) -> Meta:
    meta = mapping(obj.get("metadata"), "metadata")
    uid = text(meta.get("uid"))
    if uid is None:
        raise BadRecord("metadata.uid", "no metadata.uid")
    owners = [
        o
        for o in sequence(meta.get("ownerReferences"), "metadata.ownerReferences")
        if isinstance(o, Mapping)
    ]
    owner = next((o for o in owners if o.get("controller") is True), owners[0] if owners else {})
    return Meta(
        uid=uid,
        name=text(meta.get("name")),
        namespace=text(meta.get("namespace")),
        creation_at=timestamp(meta.get("creationTimestamp"), "metadata.creationTimestamp"),
        deletion_at=timestamp(meta.get("deletionTimestamp"), "metadata.deletionTimestamp"),
        resource_version=text(meta.get("resourceVersion")),
        labels=mapping(meta.get("labels"), "metadata.labels"),
        annotations=mapping(meta.get("annotations"), "metadata.annotations"),
        owner=(text(owner.get("kind")), text(owner.get("name")), text(owner.get("uid"))),
    )


class Seen(TypedDict):
    """Where every row of an object comes from: when and how it was seen, and at which line."""

    observed_at: dt.datetime
    event_type: str | None
    is_deleted: bool
    resource_version: str | None
    source_line: int


def seen(observation: Observation, meta: Meta) -> Seen:
    return Seen(
        observed_at=observation.observed_at,
        event_type=observation.event_type,
        is_deleted=observation.event_type == "DELETED",
        resource_version=meta.resource_version,
        source_line=observation.line,
    )
