"""extractors.kubernetes.fields: NVIDIA device-plugin resource names, quota keys, quantities."""

from __future__ import annotations

import pytest

from extractors.kubernetes.fields import (
    GpuResource,
    gpu_resource,
    parse_gpu_quantity,
    parse_quantity,
    quota_gpu_resource,
)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("nvidia.com/gpu", GpuResource("whole", None)),
        ("nvidia.com/gpu.shared", GpuResource("timeslice", None)),
        ("nvidia.com/mig-3g.40gb", GpuResource("mig", "3g.40gb")),
        ("nvidia.com/mig-1g.10gb+me", GpuResource("mig", "1g.10gb+me")),
        ("nvidia.com/mig-1g.10gb.shared", GpuResource("timeslice", "1g.10gb")),
        ("nvidia.com/mig-", None),
        ("amd.com/gpu", None),
        ("cpu", None),
    ],
)
def test_gpu_resource_names(name: str, expected: GpuResource | None) -> None:
    assert gpu_resource(name) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("requests.nvidia.com/gpu", "nvidia.com/gpu"),
        ("limits.nvidia.com/mig-3g.40gb", "nvidia.com/mig-3g.40gb"),
        ("nvidia.com/gpu", "nvidia.com/gpu"),
        ("requests.cpu", None),
        ("count/pods", None),
    ],
)
def test_quota_keys(name: str, expected: str | None) -> None:
    limited = quota_gpu_resource(name)
    assert (limited[0] if limited else None) == expected


@pytest.mark.parametrize(
    ("value", "expected"), [("1", 1), (" 2 ", 2), ("+3", 3), (4, 4), (8.0, 8), ("0", 0)]
)
def test_gpu_quantities(value: object, expected: int) -> None:
    assert parse_gpu_quantity(value, "f") == expected


@pytest.mark.parametrize("value", ["abc", "0.5", "1k", "", -1, 1.5, True, None, [1]])
def test_bad_gpu_quantities(value: object) -> None:
    with pytest.raises(ValueError, match="quantity"):
        parse_gpu_quantity(value, "f")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("4", 4.0), ("500m", 0.5), ("2Ki", 2048.0), ("1e3", 1000.0), ("1.5", 1.5), (3, 3.0),
        ("3Gi", 3 * 2.0**30),
    ],
)  # fmt: skip
def test_quantities(value: object, expected: float) -> None:
    assert parse_quantity(value, "f") == expected


@pytest.mark.parametrize("value", ["lots", "1x", "Ki", "", True])
def test_bad_quantities(value: object) -> None:
    with pytest.raises(ValueError, match="quantity"):
        parse_quantity(value, "f")
