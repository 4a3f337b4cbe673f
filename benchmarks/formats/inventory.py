"""The CMDB export, `inventory.csv`: every GPU of the fleet, nodes in order and each node's
GPUs by index (the columns `gpuledger ingest inventory` reads)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.fleet import FLEET_SINCE, GPU_CLASS, H100_MODEL, Fleet
from gpuledger.demo.common import iso_z
from gpuledger.demo.inventory import INVENTORY_COLUMNS


def write_inventory(path: Path, fleet: Fleet) -> int:
    """Write the export; returns its rows."""
    rows = 0
    with path.open("w", encoding="utf-8") as out:
        out.write(",".join(INVENTORY_COLUMNS) + "\n")
        for node in fleet.nodes:
            for gpu_uuid in node.uuids:
                out.write(
                    f"{gpu_uuid},{node.name},{H100_MODEL},{GPU_CLASS},{iso_z(FLEET_SINCE)},\n"
                )
                rows += 1
    return rows
