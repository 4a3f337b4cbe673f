"""Typed rows of the gateway request logs: one row per served (or refused) request."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

REQUESTS_TABLE = "gateway_requests"


@dataclass(frozen=True)
class GatewayRequest:
    """One request through the model gateway; times are UTC, tokens are counts (>= 0).

    `outcome` is one of OUTCOMES in parse.py: success, error, timeout, cancelled, rejected.
    """

    request_id: str
    tenant_id: str
    endpoint: str
    model: str
    input_tokens: int
    output_tokens: int
    outcome: str
    started_at: dt.datetime
    finished_at: dt.datetime
    source_line: int


RAW_TABLES: dict[str, type] = {REQUESTS_TABLE: GatewayRequest}
