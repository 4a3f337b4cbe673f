"""Render the showback of a period (and a tenant's charge lines) as a table, CSV or HTML.

It reads the served copy of the marts (gpuledger.core.serving), never warehouse.duckdb: a
report during a build shows the last complete build, and never holds up the pipeline. A line
of a rate-card component without a unit price (no rate covered it) is shown as `unpriced`,
never as its 0.00 amount, and a total that leaves such lines out as `<total> + unpriced`: a
provisional figure that is incomplete says so.
"""

from __future__ import annotations

import csv
import functools
import html
import io
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path

import yaml

from gpuledger.core.home import PROJECT_DIR
from gpuledger.core.serving import connect_served, rows
from gpuledger.output import Unpriced, cell, table_text

SHOWBACK_COLUMNS = (
    ("tenant_id", "tenant"),
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


@functools.cache
def rate_card_components() -> frozenset[str]:
    """The components the rate card prices (dbt_project.yml vars.rate_card_components)."""
    project = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text())
    return frozenset(project["vars"]["rate_card_components"])


def _mark_showback(row: dict[str, object]) -> dict[str, object]:
    if not row.get("unpriced_lines"):
        return row
    return row | {
        key: Unpriced(row[key])
        for key in ("total_charge", "cost_per_successful_unit")
        if isinstance(row[key], Decimal)
    }


def _mark_line(row: dict[str, object]) -> dict[str, object]:
    if row["unit_price"] is None and row["charge_component"] in rate_card_components():
        return row | {"unit_price": Unpriced(), "amount": Unpriced()}
    return row


def _csv(rows: Sequence[dict[str, object]], columns: Sequence[tuple[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([key for key, _ in columns])
    for row in rows:
        writer.writerow(["" if row[k] is None else str(row[k]) for k, _ in columns])
    return out.getvalue()


def _html(title: str, rows: Sequence[dict[str, object]], columns: Sequence[tuple[str, str]]) -> str:
    head = "".join(f"<th>{html.escape(label)}</th>" for _, label in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(cell(r[k]))}</td>" for k, _ in columns) + "</tr>"
        for r in rows
    )
    return (
        f"<section><h2>{html.escape(title)}</h2><table>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></section>"
    )


def _known(value: object) -> Decimal:
    figure = value.known if isinstance(value, Unpriced) else value
    return figure if isinstance(figure, Decimal) else Decimal(0)


def render_report(home: Path, period: str, tenant: str | None, fmt: str) -> str:
    with connect_served(home) as con:  # one served copy for both queries
        showback = [
            _mark_showback(row)
            for row in rows(
                con,
                "select * from marts.fact_showback where period = ? "
                "and (? is null or tenant_id = ?) order by tenant_id",
                [period, tenant, tenant],
            )
        ]
        lines: list[dict[str, object]] = []
        if tenant:
            lines = [
                _mark_line(row)
                for row in rows(
                    con,
                    "select * from marts.fact_chargeback where period = ? and tenant_id = ? "
                    "order by charge_component, gpu_class, rate_card_version, unit_price",
                    [period, tenant],
                )
            ]
    if not showback:
        raise LookupError(
            f"no showback for period {period}"
            + (f" and tenant {tenant}" if tenant else "")
            + "; run `gpuledger build` after ingesting evidence for it"
        )
    status = showback[0]["status"]
    currency = showback[0]["currency"] or ""
    title = f"GPU Ledger showback {period} ({status}, {currency})"
    if fmt == "csv":
        return _csv(lines, LINE_COLUMNS) if tenant else _csv(showback, SHOWBACK_COLUMNS)
    if fmt == "html":
        parts = [
            _html(title, showback, SHOWBACK_COLUMNS),
            _html("Allocation by sharing mode and confidence", showback, MIX_COLUMNS),
        ]
        if tenant:
            parts.append(_html(f"Charge lines of {tenant}", lines, LINE_COLUMNS))
        return (
            "<!doctype html><html><head><meta charset='utf-8'><title>"
            + html.escape(title)
            + "</title><style>body{font-family:sans-serif}td,th{padding:2px 8px;"
            "border-bottom:1px solid #ddd;text-align:right}</style></head><body>"
            + "".join(parts)
            + "</body></html>\n"
        )
    text = f"{title}\n{table_text(showback, SHOWBACK_COLUMNS)}\n"
    total = sum((_known(r["total_charge"]) for r in showback), start=Decimal(0))
    unpriced = sum(int(str(r.get("unpriced_lines") or 0)) for r in showback)
    text += f"total charged: {total:,.2f} {currency}" + (
        f" + unpriced ({unpriced} line{'s' if unpriced > 1 else ''} no rate covers)\n"
        if unpriced
        else "\n"
    )
    mix = table_text(showback, MIX_COLUMNS)
    text += f"\nAllocation by sharing mode and confidence; work delivered\n{mix}\n"
    if tenant:
        text += f"\nCharge lines of {tenant}\n{table_text(lines, LINE_COLUMNS)}\n"
    return text
