"""Timestamp parsing shared by the extractors: everything lands as zone-less UTC."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo


def parse_timestamp(value: str, timezone: str = "UTC") -> dt.datetime:
    """ISO 8601 text to naive UTC. Zone-less text is read in `timezone`.

    Accepts `Z`, `+01:00` and `+0100` offsets. Raises ValueError on anything else.
    """
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    parsed = dt.datetime.fromisoformat(text)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=ZoneInfo(timezone))
    return parsed.astimezone(dt.UTC).replace(tzinfo=None)
