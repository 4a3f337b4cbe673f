"""What the ledger records: a close, a reopen, and its refusal."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal


class LedgerError(RuntimeError):
    """The ledger refuses the operation; the message says why and what to do instead."""


@dataclass(frozen=True)
class Close:
    close_id: str
    period: str
    close_version: int
    closed_at: dt.datetime
    approver: str
    line_count: int
    total_amount: Decimal
    lines_sha256: str
    input_manifest_hash: str


@dataclass(frozen=True)
class Reopen:
    reopen_id: str
    period: str
    close_id: str
    close_version: int
    reopened_at: dt.datetime
    reason: str
