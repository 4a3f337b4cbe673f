"""`gpuledger explain`: the evidence behind a charge line, for a tenant disputing a bill.

`explain` reads `marts.fact_chargeback` and `marts.fact_charge_line_evidence` from the served
copy (gpuledger.core.serving), so it never holds up a build; the rendering
(`render_lines`, `render_line`) is pure over the rows read. Without a line id: the tenant's
lines of the period with their evidence counts. With one: the line, then every piece of
evidence behind it (segment, reservation part, endpoint units, driver row, credit, ...) with
the batch, file and line or the policy row it came from, and a last line saying whether the
pieces add up to the line's quantity and amount, with the difference when they do not.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path

import duckdb

from gpuledger.core.serving import connect_served, rows
from gpuledger.output import exact_cell, table_text

Row = dict[str, object]

LINE_LIST_COLUMNS = (
    ("charge_line_id", "line"),
    ("charge_component", "component"),
    ("gpu_class", "class"),
    ("quantity", "quantity"),
    ("unit", "unit"),
    ("unit_price", "unit price"),
    ("amount", "amount"),
    ("rate_card_version", "rate card"),
    ("status", "status"),
    ("evidence_count", "evidence"),
)

EVIDENCE_COLUMNS = (
    ("evidence_kind", "kind"),
    ("scope", "scope"),
    ("workload_id", "workload"),
    ("device", "device or node"),
    ("started_at", "start"),
    ("ended_at", "end"),
    ("capacity_fraction", "fraction"),
    ("gpu_hours", "GPU-h"),
    ("guaranteed_gpu_hours", "guaranteed"),
    ("borrowed_gpu_hours", "borrowed"),
    ("unit_price", "rate"),
    ("quantity", "quantity"),
    ("amount", "amount"),
    ("source_batch_id", "batch"),
    ("origin", "file:line"),
)


def _scope(piece: Row) -> str | None:
    """What the piece is: the segment's scope, else what the evidence row names."""
    kind = piece["evidence_kind"]
    if piece["scope_type"] is not None:
        scope = f"{piece['scope_type']}:{piece['scope_key']}"
        return f"{scope} (endpoint {piece['endpoint_id']})" if piece["endpoint_id"] else scope
    if kind == "endpoint_units":
        return (
            f"endpoint {piece['endpoint_id']}: {piece['units']:,} {piece['productive_unit']} x "
            f"{exact_cell(piece['unit_weight'])} = "
            f"{exact_cell(piece['weighted_units'])} weighted units "
            f"({piece['weight_version']}); tenant share {piece['endpoint_share']}"
        )
    if kind == "reservation":
        gpus = f"{piece['reserved_gpus'].normalize():f}"
        return f"reservation of {gpus} {piece['evidence_gpu_class']} GPUs"
    if kind in ("overhead_driver", "pool"):
        return f"{piece['evidence_gpu_class']} {kind.replace('_', ' ')}"
    if piece["related_charge_line_id"] is not None:
        return f"line {piece['related_charge_line_id']}"
    return None


def _origin(piece: Row) -> str | None:
    if piece["source_file"] is not None and piece["source_line"] is not None:
        return f"{piece['source_file']}:{piece['source_line']}"
    return piece["policy_source"] or piece["source_file"]


def _evidence_row(piece: Row) -> Row:
    return {
        **piece,
        "scope": _scope(piece),
        "device": piece["gpu_uuid"] or piece["node_name"],
        "origin": _origin(piece),
    }


def _sums(line: Row, evidence: Sequence[Row]) -> str:
    quantity = sum((p["quantity"] for p in evidence), start=Decimal("0.000000"))
    amount = sum((p["amount"] for p in evidence), start=Decimal("0.00"))
    unit, currency = line["unit"], line["currency"]
    if quantity == line["quantity"] and amount == line["amount"]:
        return (
            f"evidence adds up to the line: quantity {quantity:,f} {unit} and "
            f"amount {amount:,f} {currency}, exactly"
        )
    return (
        f"evidence does NOT add up to the line: quantity {quantity:,f} {unit} against "
        f"{line['quantity']:,f} (difference {quantity - line['quantity']:,f}), amount "
        f"{amount:,f} {currency} against {line['amount']:,f} "
        f"(difference {amount - line['amount']:,f})"
    )


def render_lines(period: str, tenant: str, lines: Sequence[Row]) -> str:
    """The tenant's charge lines of the period, each with how many pieces of evidence it has."""
    return (
        f"Charge lines of {tenant} in {period}; "
        f"`gpuledger explain --period {period} --tenant {tenant} --line ID` shows a line's "
        f"evidence\n{table_text(lines, LINE_LIST_COLUMNS, exact_cell)}\n"
    )


def render_line(line: Row, evidence: Sequence[Row]) -> str:
    """One charge line, the evidence behind it, and whether the evidence adds up to it."""
    status = str(line["status"])
    if line["close_id"] is not None:
        status += f", published by {line['close_id']}"
    corrects = ""
    if line["corrects_period"] is not None:
        corrects = f" of {line['corrects_period']} ({line['corrects_close_id']})"
    text = [
        f"Charge line {line['charge_line_id']}",
        f"  period       {line['period']}, tenant {line['tenant_id']}",
        f"  component    {line['charge_component']} (class {line['gpu_class']})"
        + (f", {line['charge_class']}{corrects}" if line["charge_class"] else ""),
        f"  quantity     {exact_cell(line['quantity'])} {line['unit']}",
        f"  unit price   {exact_cell(line['unit_price'])}",
        f"  amount       {exact_cell(line['amount'])} {line['currency']}",
        f"  rate card    {exact_cell(line['rate_card_version'])}",
        f"  confidence   {line['confidence']}",
        f"  status       {status}",
        f"  basis        {line['description']}",
        "",
    ]
    if evidence:
        text.append(f"Evidence ({len(evidence)} piece{'' if len(evidence) == 1 else 's'})")
        text.append(table_text([_evidence_row(p) for p in evidence], EVIDENCE_COLUMNS, exact_cell))
        if not all(p["is_line_reproduced"] for p in evidence):
            text.append(
                "the period recomputed now no longer gives the published line "
                "(evidence or policy changed after the close); the evidence is the recomputation"
            )
    else:
        text.append(
            "no evidence: the recomputation no longer produces this line"
            if line["status"] == "closed"
            else "no evidence"
        )
    text.append(_sums(line, evidence))
    return "\n".join(text) + "\n"


def explain(home: Path, period: str, tenant: str, line_id: str | None) -> str:
    """What `gpuledger explain` prints; LookupError for an unknown period, tenant or line."""
    with connect_served(home) as con:  # one served copy for every query
        return _explain(con, period, tenant, line_id)


def _explain(con: duckdb.DuckDBPyConnection, period: str, tenant: str, line_id: str | None) -> str:
    lines = rows(
        con,
        "select lines.*, (select count(*) from marts.fact_charge_line_evidence as evidence "
        "where evidence.charge_line_id = lines.charge_line_id) as evidence_count "
        "from marts.fact_chargeback as lines where lines.period = ? "
        "order by lines.tenant_id, lines.charge_component, lines.gpu_class, "
        "lines.rate_card_version, lines.unit_price",
        [period],
    )
    if not lines:
        raise LookupError(f"no charge lines for period {period}; run `gpuledger build` first")
    mine = [line for line in lines if line["tenant_id"] == tenant]
    if not mine:
        tenants = ", ".join(sorted({str(line["tenant_id"]) for line in lines}))
        raise LookupError(f"tenant {tenant} has no charge lines in {period} (tenants: {tenants})")
    if line_id is None:
        return render_lines(period, tenant, mine)
    line = next((row for row in mine if row["charge_line_id"] == line_id), None)
    if line is None:
        raise LookupError(
            f"no charge line {line_id} of {tenant} in {period}; "
            f"`gpuledger explain --period {period} --tenant {tenant}` lists them"
        )
    evidence = rows(
        con,
        "select * from marts.fact_charge_line_evidence where charge_line_id = ? "
        "order by evidence_id",
        [line_id],
    )
    return render_line(line, evidence)
