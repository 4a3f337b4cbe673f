"""Calling NVML through pynvml without letting one missing value stop a sampler.

An NVML error is either *soft* (this value cannot be had: NotSupported on a MIG device,
NotFound when there are no samples, NoPermission ...), recorded as a null field with a
reason, or *hard* (the device is gone or the driver broke: GPU_IS_LOST, Unknown ...),
which ends the reading of that device and is recorded as an error row.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import pynvml

from extractors.filebatch import SourceFileError

T = TypeVar("T")
Record = dict[str, Any]  # one JSON line of a sampler

_HARD = frozenset(
    {
        pynvml.NVML_ERROR_GPU_IS_LOST,
        pynvml.NVML_ERROR_RESET_REQUIRED,
        pynvml.NVML_ERROR_GPU_NOT_FOUND,
        pynvml.NVML_ERROR_UNINITIALIZED,
        pynvml.NVML_ERROR_DRIVER_NOT_LOADED,
        pynvml.NVML_ERROR_UNKNOWN,
    }
)


class NvmlUnavailableError(SourceFileError):
    """NVML cannot be initialised on this machine (no driver, no library)."""


def reason(err: pynvml.NVMLError) -> str:
    """`NVMLError_NotSupported` -> `not_supported`; an unnamed code -> `nvml_error_<code>`."""
    name = type(err).__name__.removeprefix("NVMLError").lstrip("_")
    if not name:
        return f"nvml_error_{err.value}"
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def describe(err: pynvml.NVMLError) -> str:
    return f"{reason(err)}: {err}"


def is_hard(err: pynvml.NVMLError) -> bool:
    return err.value in _HARD


class NullReasons:
    """Collects why fields are null while one record is read."""

    def __init__(self) -> None:
        self.reasons: dict[str, str] = {}

    def read(self, field: str, call: Callable[..., T], *args: Any) -> T | None:
        """`call(*args)`, or None with the reason noted for `field` on a soft NVML error.

        A hard error propagates: the caller records the device as unreadable.
        """
        try:
            return call(*args)
        except pynvml.NVMLError as err:
            if is_hard(err):
                raise
            self.reasons[field] = reason(err)
        except pynvml.NVMLLibraryMismatchError:  # an unversioned call the driver lacks
            self.reasons[field] = "nvml_library_mismatch"
        return None

    def note(self, field: str, why: str) -> None:
        self.reasons[field] = why


def read_every_gpu(
    read: Callable[[int, Any, str], list[Record]],
    unreadable: Callable[[int, pynvml.NVMLError], list[Record]],
    known: Iterable[int],
) -> list[Record]:
    """One round: `read(index, handle, uuid)` for every GPU. A GPU NVML fails on is
    `unreadable(index, err)` and the round goes on; when NVML cannot even count the GPUs,
    every `known` index is."""
    try:
        count = pynvml.nvmlDeviceGetCount()
    except pynvml.NVMLError as err:
        return [record for index in sorted(known) for record in unreadable(index, err)]
    records: list[Record] = []
    for index in range(count):
        try:
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            records.extend(read(index, handle, pynvml.nvmlDeviceGetUUID(handle)))
        except pynvml.NVMLError as err:
            records.extend(unreadable(index, err))
    return records


class NewSamples:
    """NVML's utilisation samples newer than the last ones read, per device.

    `read(call, handle, key)` calls `call(handle, last sample time of key)`
    (nvmlDeviceGetProcessUtilization, nvmlDeviceGetVgpuUtilization), so each sample is read
    once: (the samples, None), or ([], the reason) on a soft NVML error.
    """

    def __init__(self) -> None:
        self._seen_us: dict[str, int] = {}  # key -> time of its newest sample read

    def read(
        self, call: Callable[[Any, int], list[Any]], handle: Any, key: str
    ) -> tuple[list[Any], str | None]:
        try:
            samples = call(handle, self._seen_us.get(key, 0))
        except pynvml.NVMLError as err:
            if is_hard(err):
                raise
            return [], reason(err)
        for sample in samples:
            self._seen_us[key] = max(self._seen_us.get(key, 0), sample.timeStamp)
        return samples, None


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def iso(moment: dt.datetime) -> str:
    """An aware datetime as ISO 8601 UTC with `Z`, to the microsecond."""
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@contextmanager
def nvml_session() -> Iterator[None]:
    """nvmlInit ... nvmlShutdown; an NVML that cannot start is a user-facing error."""
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as err:
        raise NvmlUnavailableError(
            f"NVML is not available on this machine ({describe(err)}); run the sampler on a "
            "GPU node with the NVIDIA driver, or land recorded files with --file"
        ) from None
    try:
        yield
    finally:
        pynvml.nvmlShutdown()
