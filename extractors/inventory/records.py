"""Typed rows of the approved GPU inventory (CMDB export)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

DEVICES_TABLE = "inventory_devices"


@dataclass(frozen=True)
class InventoryDevice:
    """One physical GPU and the interval it is in service, `[in_service_from, in_service_to)`."""

    gpu_uuid: str
    node: str
    gpu_model: str
    gpu_class: str | None
    in_service_from: dt.datetime
    in_service_to: dt.datetime | None
    source_line: int


RAW_TABLES: dict[str, type] = {DEVICES_TABLE: InventoryDevice}
# a CMDB export is a snapshot of the approved inventory, not evidence of a time span
TIME_SERIES = False
