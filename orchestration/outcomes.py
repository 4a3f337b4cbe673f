"""How a step says why it refused, so the CLI maps it to its exit code and the UI shows it.

A refusing step raises `refusal(kind, message)`: a dagster Failure whose description is the
message and whose metadata carries the kind under OUTCOME_KEY; `refused_on(errors)` turns the
errors a user can act on (another process holding the warehouse) into a FAILED refusal.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from dagster import Failure

from gpuledger.core.gate import ALREADY_CLOSED, BLOCKED

__all__ = [
    "ALREADY_CLOSED",
    "BLOCKED",
    "FAILED",
    "OUTCOME_KEY",
    "STALE",
    "refusal",
    "refused_on",
]

OUTCOME_KEY = "gpuledger/outcome"
FAILED = "failed"
STALE = "stale_definitions"


def refusal(kind: str, message: str) -> Failure:
    return Failure(description=message, metadata={OUTCOME_KEY: kind}, allow_retries=False)


@contextmanager
def refused_on(*errors: type[Exception]) -> Iterator[None]:
    """Raise any of `errors` as a FAILED refusal carrying its message (no traceback)."""
    try:
        yield
    except errors as exc:
        raise refusal(FAILED, str(exc)) from None
