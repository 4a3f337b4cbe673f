"""Parse the approved inventory, a CMDB CSV export (pure; no I/O)."""

from __future__ import annotations

import csv
import io

from extractors.inventory.records import DEVICES_TABLE, InventoryDevice
from extractors.records import ParseResult
from extractors.timeparse import parse_timestamp

REQUIRED_COLUMNS = (
    "gpu_uuid",
    "node",
    "gpu_model",
    "gpu_class",
    "in_service_from",
    "in_service_to",
)


def csv_field_at(text: str, line: int, column: int) -> str | None:
    """The header's name of the column at (line, column): where an invalid byte sits."""
    lines = text.split("\n")
    header = next(csv.reader([lines[0]]), [])
    index = len(next(csv.reader([lines[line - 1][:column]]), [""])) - 1
    return header[index].strip() if 0 <= index < len(header) else None


class InventoryFormatError(ValueError):
    """The file as a whole is unusable (no header, missing columns)."""


def parse_inventory_csv(text: str) -> ParseResult:
    """One InventoryDevice per data row; a bad row is rejected with its line and field.

    A GPU UUID listed twice in one export is rejected on its second line: an export is a
    snapshot, one row per device.
    """
    reader = csv.reader(io.StringIO(text))
    try:
        header = [h.strip().lower() for h in next(reader)]
    except StopIteration:
        raise InventoryFormatError("empty file: expected a header line") from None
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise InventoryFormatError(
            f"line 1: missing column(s) {', '.join(missing)}; expected {','.join(REQUIRED_COLUMNS)}"
        )
    index = {name: header.index(name) for name in REQUIRED_COLUMNS}
    result = ParseResult()
    seen: dict[str, int] = {}
    for fields in reader:
        line = reader.line_num
        if not any(f.strip() for f in fields):
            continue
        result.records_read += 1
        raw = ",".join(fields)
        if len(fields) != len(header):
            result.reject(line, "line", f"expected {len(header)} fields, got {len(fields)}", raw)
            continue
        row = {name: fields[i].strip() for name, i in index.items()}
        for name in ("gpu_uuid", "node", "gpu_model", "in_service_from"):
            if not row[name]:
                result.reject(line, name, f"{name} is empty", raw)
                break
        else:
            device = _device(result, line, raw, row)
            if device is None:
                continue
            if device.gpu_uuid in seen:
                result.reject(
                    line,
                    "gpu_uuid",
                    f"duplicate gpu_uuid {device.gpu_uuid!r} "
                    f"(first on line {seen[device.gpu_uuid]})",
                    raw,
                )
                continue
            seen[device.gpu_uuid] = line
            result.add(DEVICES_TABLE, device)
    return result


def _device(
    result: ParseResult, line: int, raw: str, row: dict[str, str]
) -> InventoryDevice | None:
    times = {}
    for name in ("in_service_from", "in_service_to"):
        if not row[name]:
            times[name] = None
            continue
        try:
            times[name] = parse_timestamp(row[name])
        except ValueError:
            result.reject(line, name, f"invalid timestamp {row[name]!r}", raw)
            return None
    start, end = times["in_service_from"], times["in_service_to"]
    if end is not None and end <= start:
        result.reject(
            line,
            "in_service_to",
            f"in_service_to {row['in_service_to']} is not after in_service_from",
            raw,
        )
        return None
    return InventoryDevice(
        gpu_uuid=row["gpu_uuid"],
        node=row["node"],
        gpu_model=row["gpu_model"],
        gpu_class=row["gpu_class"] or None,
        in_service_from=start,
        in_service_to=end,
        source_line=line,
    )
