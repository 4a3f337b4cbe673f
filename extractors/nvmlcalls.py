"""Calling NVML through pynvml without letting one missing value stop a sampler.

An NVML error is either *soft* (this value cannot be had: NotSupported on a MIG device,
NotFound when there are no samples, NoPermission ...), recorded as a null field with a
reason, or *hard* (the device is gone or the driver broke: GPU_IS_LOST, Unknown ...),
which ends the reading of that device and is recorded as an error row.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import pynvml

from extractors.filebatch import SourceFileError

T = TypeVar("T")

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
