"""A page's close identity and charges: the close (or a provisional banner), the charges
totalled by party, by tenant and component, by component and GPU class, and a tenant's lines.
Pure over a PeriodData; each figure carries its mart value and scope (gpuledger.site.figures).
"""

from __future__ import annotations

import gpuledger.site.measures as measures
from gpuledger.site.data import PLATFORM, PeriodData, marked_line, marked_showback
from gpuledger.site.figures import NUM, cell, measured, name, net, part, unpriced, who
from gpuledger.site.markup import esc, fig, section, shown, table, td
from gpuledger.site.svg import Bar, Part, bar_chart

CLOSE_FIELDS = (
    ("close id", "close_id", "code"),
    ("version", "close_version", "span"),
    ("approver", "approver", "span"),
    ("closed at", "closed_at", "span"),
    ("lines sha256", "lines_sha256", "code"),
)
# the fleet's figures of the close; a tenant's page leaves them out (they sum every tenant)
FLEET_CLOSE_FIELDS = (
    ("charge lines", "line_count", "span"),
    ("published total", "total_amount", "span"),
)
# every component a charging model writes, in a fixed order, so a component has one colour
# on every page
COMPONENTS = (
    "guaranteed_capacity",
    "burst_usage",
    "allocated_gpu_hours",
    "fixed_capacity",
    "variable_usage",
    "shared_endpoint",
    "shared_endpoint_hosting",
    "shared_overhead",
    "credit",
    "unrecovered_pool_cost",
    "central_platform",
)
LINE_HEAD = (
    "component",
    "class",
    ("quantity", NUM),
    "unit",
    ("unit price", NUM),
    ("amount", NUM),
    "rate card",
    "confidence",
    "basis",
)


def identity(data: PeriodData) -> str:
    """The close that holds the period (id, version, approver, date, lines hash), or a banner."""
    close, scope = data.identity, {"period": data.period}
    if not close.is_closed:
        return section(
            f"Provisional: {data.period} is not closed",
            "<p><strong>These figures are provisional.</strong> They are the last build's and "
            "change with new evidence until the period is closed; no close holds them yet.</p>",
            css="provisional",
        )
    fields = CLOSE_FIELDS + (() if data.tenant else FLEET_CLOSE_FIELDS)
    body = "".join(
        f"<tr><th>{esc(what)}</th><td>{fig(key, getattr(close, key), scope, tag=tag, css='')}"
        "</td></tr>"
        for what, key, tag in fields
    )
    return section(
        f"Closed and published: {data.period}",
        f"<table>{body}</table>",
        '<p class="note">The close id ends with the first characters of the sha256 of the '
        "published charge lines, which the ledger keeps append-only.</p>",
        css="identity",
    )


def _card(what: str, figure: str, note: str, css: str = "card") -> str:
    return (
        f'<div class="{css}"><div class="what">{esc(what)}</div>{figure}'
        f'<div class="what">{esc(note)}</div></div>'
    )


def party_totals(data: PeriodData) -> str:
    """Tenants, the suspense line and the central platform line totalled apart, then all."""
    cards = [
        _card(
            label,
            fig(
                "total_charge",
                amount,
                data.scope | {"party": key},
                unpriced(amount, lines),
                "div",
                "amount",
            ),
            measures.PARTY_NOTES[key],
        )
        for key, label, amount, lines in data.party_totals()
    ]
    everything = data.sum("total_charge")
    shown_total = unpriced(everything, data.sum("unpriced_lines"))
    cards.append(
        _card(
            "total",
            fig("total_charge", everything, data.scope, shown_total, "div", "amount"),
            "every charge line of the period",
            "card sum",
        )
    )
    title = f"Charges of {data.period} ({data.currency})"
    return section(title, f'<div class="cards">{"".join(cards)}</div>')


def tenant_cards(data: PeriodData) -> str:
    (row,) = data.showback
    marked = marked_showback(row)
    cards = (
        ("total charge", "total_charge", "the sum of its charge lines"),
        ("allocated GPU-hours", "allocated_gpu_hours", "guaranteed + borrowed"),
        ("successful jobs", "successful_jobs", "GPU workloads that ended with success"),
        ("cost per successful job", "cost_per_successful_unit", "total charge / successful jobs"),
    )
    body = "".join(
        _card(what, fig(key, row[key], data.scope, marked[key], "div", "amount"), note)
        for what, key, note in cards
    )
    return section(f"{data.period} ({data.currency})", f'<div class="cards">{body}</div>')


def _label(component: str) -> str:
    return component.replace("_", " ")


def _components(data: PeriodData) -> list[str]:
    present = {str(line["charge_component"]) for line in data.lines}
    return [c for c in COMPONENTS if c in present] + sorted(present - set(COMPONENTS))


def _series(data: PeriodData) -> list[tuple[str, str]]:
    """Every known component (the legend shows those drawn), then any other the lines name."""
    others = sorted({str(line["charge_component"]) for line in data.lines} - set(COMPONENTS))
    return [(c, _label(c)) for c in (*COMPONENTS, *others)]


def _parts(data: PeriodData, components: list[str], scope: dict[str, str]) -> list[Part]:
    return [
        part(c, "amount", value, scope | {"component": c})
        for c in components
        if (value := measured(data.lines, "amount", scope | {"component": c})) is not None
    ]


def _total(data: PeriodData, scope: dict[str, str]) -> str:
    """A total charge: fact_showback's, shown `X + unpriced` when it leaves lines out."""
    amount = measured(data.showback, "total_charge", scope)
    lines = measured(data.showback, "unpriced_lines", scope)
    return fig("total_charge", amount, scope, unpriced(amount, lines))


def charges_by_tenant(data: PeriodData) -> str:
    """Fleet: each tenant's charges by component, chart and table, parties totalled apart."""
    components = _components(data)
    bars = [
        Bar(
            name(data, row),
            _parts(data, components, who(data, row)),
            total=net("total_charge", who(data, row)),
        )
        for row in data.showback
    ]
    chart = bar_chart("Charges by tenant and component", bars, _series(data), shown)
    body = []
    for row in data.showback:
        tenant = data.tenants[str(row["tenant_id"])]
        scope, named = who(data, row), {"tenant": tenant.tenant_id}
        body.append(
            [
                td(tenant.tenant_id, "id"),
                fig("tenant_name", tenant.tenant_name, named, css=""),
                fig("department", tenant.department, named, css=""),
                fig("cost_center", tenant.cost_center, named, css="id"),
                *[cell("amount", data.lines, scope | {"component": c}) for c in components],
                _total(data, scope),
            ]
        )
    foot = []
    for key, label, _, _ in data.party_totals():
        scope = data.scope | {"party": key}
        cells = [cell("amount", data.lines, scope | {"component": c}) for c in components]
        foot.append(("", [td(label), td(""), td(""), td(""), *cells, _total(data, scope)]))
    cells = [cell("amount", data.lines, data.scope | {"component": c}) for c in components]
    foot.append(("grand", [td("total"), td(""), td(""), td(""), *cells, _total(data, data.scope)]))
    head = ["tenant", "name", "department", "cost centre", *[(_label(c), NUM) for c in components]]
    note = (
        '<p class="note">Tenants, the unattributed (suspense) line and the central platform line '
        "are totalled apart: the platform line is the pool cost no tenant is charged, and the "
        "suspense line waits for an owner. Credits (and a shared endpoint's hosting credit) are "
        "negative, drawn left of zero.</p>"
    )
    return section(
        "Charges by tenant and component",
        chart,
        note,
        table([*head, ("total", NUM)], body, foot),
    )


def charges_by_class(data: PeriodData) -> str:
    """Charges by component and GPU class: a bar per class, the component x class table."""
    title = "Charges by component and GPU class"
    components = _components(data)
    classes = sorted({str(line["gpu_class"]) for line in data.lines})
    if not classes:
        return section(title, '<p class="note">No charge lines in the period.</p>')
    by_class = {cls: data.scope | {"gpu-class": cls} for cls in classes}
    bars = [
        Bar(cls, _parts(data, components, scope), total=net("amount", scope))
        for cls, scope in by_class.items()
    ]
    chart = bar_chart(title, bars, _series(data), shown)
    body = [
        [
            td(_label(c)),
            *[cell("amount", data.lines, scope | {"component": c}) for scope in by_class.values()],
            cell("amount", data.lines, data.scope | {"component": c}),
        ]
        for c in components
    ]
    totals = [cell("amount", data.lines, scope) for scope in by_class.values()]
    foot = [("grand", [td("total"), *totals, cell("amount", data.lines, data.scope)])]
    note = (
        '<p class="note">The class "shared" holds the lines no GPU class carries: the shared '
        "overhead (split by the policy's overhead driver) and credits.</p>"
    )
    head = ["component", *[(cls, NUM) for cls in classes], ("total", NUM)]
    return section(title, chart, note, table(head, body, foot))


def charge_lines(data: PeriodData) -> str:
    """A tenant's charge lines, as `gpuledger report --tenant` lists them."""
    body = []
    for line in data.lines:
        marked = marked_line(line)
        scope = data.scope | {"line": str(line["charge_line_id"])}
        body.append(
            [
                td(line["charge_component"]),
                td(line["gpu_class"]),
                fig("quantity", line["quantity"], scope),
                td(line["unit"]),
                fig("unit_price", line["unit_price"], scope, marked["unit_price"]),
                fig("amount", line["amount"], scope, marked["amount"]),
                td(shown(line["rate_card_version"])),
                td(line["confidence"]),
                td(shown(line["description"])),
            ]
        )
    note = (
        '<p class="note">`gpuledger explain --period P --tenant T --line ID` lists the evidence '
        "behind a line, each piece with the file and line it came from.</p>"
    )
    if data.tenant == PLATFORM:
        note += (
            '<p class="note">The central platform line: the part of each GPU class\'s cost pool '
            "that the tenants' charges did not recover.</p>"
        )
    return section("Charge lines", table(LINE_HEAD, body), note)
