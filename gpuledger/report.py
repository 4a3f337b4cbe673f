"""Render the showback of a period (and a tenant's charge lines) as a table, CSV or HTML.

It reads the served copy of the marts through gpuledger.site.data (one connection), never
warehouse.duckdb: a report during a build shows the last complete build, and never holds up the
pipeline. Every format names the close that holds the period (id, version, approver, date,
lines hash) or says it is provisional, shows tenant names, and totals the tenants, the
unattributed (suspense) line and the central platform line apart, so the platform's pool cost
is never read as a tenant's debt. A line of a rate-card component without a unit price (no rate
covered it) is shown as `unpriced`, never as its 0.00 amount, and a total that leaves such
lines out as `<total> + unpriced`. HTML is the showback site's page (gpuledger.site), one
self-contained file.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from gpuledger.output import table_text
from gpuledger.site import PeriodData, fleet_page, load_period, tenant_page
from gpuledger.site.data import marked_line, marked_showback

SHOWBACK_COLUMNS = (
    ("tenant_id", "tenant"),
    ("tenant_name", "name"),
    ("reserved_gpu_hours", "reserved GPU-h"),
    ("allocated_gpu_hours", "allocated GPU-h"),
    ("guaranteed_gpu_hours", "guaranteed GPU-h"),
    ("borrowed_gpu_hours", "borrowed GPU-h"),
    ("active_equivalent_gpu_hours", "active-eq GPU-h"),
    ("idle_allocated_gpu_hours", "idle-alloc GPU-h"),
    ("successful_jobs", "successful jobs"),
    ("total_charge", "charge"),
    ("cost_per_successful_unit", "per success"),
    ("status", "status"),
)

MIX_COLUMNS = (
    ("tenant_id", "tenant"),
    ("whole_gpu_hours", "whole GPU-h"),
    ("mig_gpu_hours", "MIG GPU-h"),
    ("vgpu_gpu_hours", "vGPU GPU-h"),
    ("timeslice_gpu_hours", "time-slice GPU-h"),
    ("process_gpu_hours", "process-mapped GPU-h"),
    ("high_confidence_gpu_hours", "high conf."),
    ("medium_confidence_gpu_hours", "medium conf."),
    ("modeled_gpu_hours", "modeled"),
    ("unattributed_gpu_hours", "unattributed"),
    ("telemetry_unknown_gpu_hours", "no telemetry"),
    ("unsuccessful_jobs", "failed jobs"),
    ("requests", "requests"),
    ("input_tokens", "input tokens"),
    ("output_tokens", "output tokens"),
)

LINE_COLUMNS = (
    ("charge_component", "component"),
    ("gpu_class", "class"),
    ("quantity", "quantity"),
    ("unit", "unit"),
    ("unit_price", "unit price"),
    ("amount", "amount"),
    ("rate_card_version", "rate card"),
    ("confidence", "confidence"),
    ("description", "basis"),
)

# the first columns of every CSV row: what the figures are of and whom they bill
CSV_KEYS = ("period", "currency", "tenant_id", "tenant_name", "department", "cost_center")
CSV_SHOWBACK = (
    *(key for key, _ in SHOWBACK_COLUMNS if key not in ("tenant_id", "tenant_name", "status")),
    *(key for key, _ in MIX_COLUMNS if key != "tenant_id"),
    "unpriced_lines",
    "status",
    "close_id",
)
CSV_LINES = ("charge_line_id", *(key for key, _ in LINE_COLUMNS), "status", "close_id")


def close_line(data: PeriodData) -> str:
    """The close that holds the period, or that it is provisional."""
    close = data.identity
    if not close.is_closed:
        return (
            f"provisional: {data.period} is not closed; these figures change with new evidence "
            "until it is"
        )
    return (
        f"close {close.close_id}: version {close.close_version}, approver {close.approver}, "
        f"closed at {close.closed_at:%Y-%m-%d %H:%M:%S} UTC, lines sha256 {close.lines_sha256}"
    )


def _money(amount: object, unpriced: int, currency: str) -> str:
    text = f"{amount:,.2f} {currency}"
    if unpriced:
        text += f" + unpriced ({unpriced} line{'s' if unpriced > 1 else ''} no rate covers)"
    return text


def totals_line(data: PeriodData) -> str:
    """`tenants: X; unattributed (suspense): U; central platform: Y; total: X+U+Y` (with
    `--tenant`, only its total)."""
    everything = _money(
        data.sum("total_charge") or 0, int(data.sum("unpriced_lines") or 0), data.currency
    )
    if data.tenant:
        return f"total: {everything}"
    parts = [
        f"{label}: {_money(amount, unpriced, data.currency)}"
        for _, label, amount, unpriced in data.party_totals()
    ]
    return "; ".join([*parts, f"total: {everything}"])


def _csv(header: Sequence[str], rows: Sequence[dict[str, object]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow(["" if row[k] is None else str(row[k]) for k in header])
    return out.getvalue()


def _billed(data: PeriodData, row: dict[str, object]) -> dict[str, object]:
    tenant = data.tenants[str(row["tenant_id"])]
    return row | {
        "period": data.period,
        "currency": data.currency,
        "tenant_name": tenant.tenant_name,
        "department": tenant.department,
        "cost_center": tenant.cost_center,
        "close_id": data.identity.close_id if data.identity.is_closed else None,
    }


def render_report(home: Path, period: str, tenant: str | None, fmt: str) -> str:
    data = load_period(home, period)
    if tenant:
        data = data.of_tenant(tenant)
    if fmt == "html":
        return tenant_page(data, links=False) if tenant else fleet_page(data, links=False)
    showback = [_billed(data, marked_showback(row)) for row in data.showback]
    lines = [_billed(data, marked_line(row)) for row in data.lines]
    if fmt == "csv":
        if tenant:
            return _csv((*CSV_KEYS, *CSV_LINES), lines)
        return _csv((*CSV_KEYS, *CSV_SHOWBACK), showback)
    title = f"GPU Ledger showback {period} ({data.status}, {data.currency})"
    text = f"{title}\n{close_line(data)}\n{table_text(showback, SHOWBACK_COLUMNS)}\n"
    text += totals_line(data) + "\n"
    mix = table_text(showback, MIX_COLUMNS)
    text += f"\nAllocation by sharing mode and confidence; work delivered\n{mix}\n"
    if tenant:
        text += f"\nCharge lines of {tenant}\n{table_text(lines, LINE_COLUMNS)}\n"
    return text
