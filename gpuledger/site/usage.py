"""A page's usage sections: the four ledgers (reserved, allocated = guaranteed + borrowed,
active-equivalent, idle-allocated and no telemetry), idle classes with their payers, sharing
modes and confidence, productive work and its unit costs, and the month-over-month trend.
Pure over a PeriodData; each figure carries its mart value and scope.
"""

from __future__ import annotations

import gpuledger.site.measures as measures
from gpuledger.site.data import PARTIES, PLATFORM, PeriodData, Row, per
from gpuledger.site.figures import NUM, cell, figures, foot, key, measured, name, net, part, who
from gpuledger.site.markup import definitions, fig, section, shown, table, td
from gpuledger.site.svg import Bar, bar_chart, column_chart

LEDGER_BARS = (
    ("reserved", (("reserved", "reserved_gpu_hours"),)),
    ("allocated", (("guaranteed", "guaranteed_gpu_hours"), ("borrowed", "borrowed_gpu_hours"))),
    ("active-eq.", (("active", "active_equivalent_gpu_hours"),)),
)
# a tenant's page draws its activity ledger in full
TENANT_LEDGER_BARS = (
    *LEDGER_BARS,
    ("idle-alloc.", (("idle", "idle_allocated_gpu_hours"),)),
    ("no telemetry", (("unknown", "telemetry_unknown_gpu_hours"),)),
)
LEDGER_SERIES = (
    ("reserved", "reserved"),
    ("guaranteed", "guaranteed"),
    ("borrowed", "borrowed"),
    ("active", "active-equivalent"),
    ("idle", "idle-allocated"),
    ("unknown", "no telemetry"),
)
WORK_KEYS = ("successful_jobs", "unsuccessful_jobs", "requests", "input_tokens", "output_tokens")
UNIT_COSTS = ("cost_per_successful_unit", "cost_per_successful_request", "cost_per_million_tokens")


def ledgers(data: PeriodData) -> str:
    """Reserved vs allocated (guaranteed, borrowed) vs active-equivalent: the ledgers side by
    side, never collapsed into one figure."""
    bars = []
    for row in data.showback:
        if row["tenant_id"] == PLATFORM:
            continue  # holds no allocation; its line is the pool cost not recovered
        scope = who(data, row)
        for label, parts in TENANT_LEDGER_BARS if data.tenant else LEDGER_BARS:
            drawn = [part(s, metric, row[metric], scope) for s, metric in parts]  # type: ignore[arg-type]
            total = net("allocated_gpu_hours", scope) if len(parts) > 1 else {}
            bars.append(Bar(label, drawn, group=name(data, row), total=total))
    title = "Reserved, allocated and active-equivalent GPU-hours"
    chart = bar_chart(title, bars, LEDGER_SERIES, shown) if bars else ""
    keys = list(measures.LEDGER)
    head = ["tenant", *[(measures.LEDGER[k][0], NUM) for k in keys]]
    body = [[td(name(data, row)), *figures(data, row, keys)] for row in data.showback]
    summed = [k for k in keys if k != "reservation_occupancy_ratio"]
    note = (
        '<p class="note">GPU-hours are GPU-equivalent hours. "-" for active-equivalent or '
        "idle-allocated is unknown, not zero: no telemetry covered any of the allocation. The "
        "bar of allocated GPU-hours is guaranteed + borrowed.</p>"
    )
    titles = dict(measures.LEDGER.values())
    return section(
        "Reserved, allocated and active GPU-hours",
        chart,
        table(head, body, foot(data, keys, summed), titles),
        note,
        definitions(measures.LEDGER.values()),
    )


def idle_capacity(data: PeriodData) -> str:
    """Physical capacity by allocated and idle class, with the class's default payer."""
    title = "Allocated and idle capacity, and who pays for it"
    if not data.idle:
        return section(title, '<p class="note">No capacity rows in the period.</p>')
    classes = sorted({str(row["gpu_class"]) for row in data.idle})
    kinds = [k for k in measures.IDLE_CLASSES if any(r["idle_class"] == k for r in data.idle)]
    by_class = {cls: data.scope | {"gpu-class": cls} for cls in classes}
    bars = [
        Bar(
            cls,
            [
                part(k, "gpu_hours", value, scope | {"idle-class": k})
                for k in kinds
                if (value := measured(data.idle, "gpu_hours", scope | {"idle-class": k}))
                is not None
            ],
            total=net("gpu_hours", scope),
        )
        for cls, scope in by_class.items()
    ]
    series = [(k, k.replace("_", " ")) for k in measures.IDLE_CLASSES]
    chart = bar_chart(title, bars, series, shown)
    pairs = sorted(
        {(str(r["idle_class"]), str(r["default_payer"])) for r in data.idle},
        key=lambda pair: (list(measures.IDLE_CLASSES).index(pair[0]), pair[1]),
    )
    body = []
    for idle_class, payer in pairs:
        scope = data.scope | {"idle-class": idle_class, "payer": payer}
        body.append(
            [
                td(idle_class.replace("_", " ")),
                td(payer),
                *[cell("gpu_hours", data.idle, scope | {"gpu-class": c}) for c in classes],
                cell("gpu_hours", data.idle, scope),
            ]
        )
    totals = [cell("gpu_hours", data.idle, scope) for scope in by_class.values()]
    rows = [
        ("grand", [td("all classes"), td(""), *totals, cell("gpu_hours", data.idle, data.scope)])
    ]
    head = ["class", "default payer", *[(c, NUM) for c in classes], ("GPU-hours", NUM)]
    note = (
        '<p class="note">The fleet\'s classes partition the physical GPU-hours of each GPU '
        "class; a tenant's page shows the classes of its own allocation and unused guarantee."
        "</p>"
        if not data.tenant
        else '<p class="note">The classes of this allocation and unused guarantee.</p>'
    )
    payers = sorted({payer for _, payer in pairs})
    words = [(k.replace("_", " "), measures.IDLE_CLASSES[k]) for k in kinds]
    words += [(f"payer: {p}", measures.PAYERS[p]) for p in payers]
    return section(title, chart, table(head, body, rows, dict(words)), note, definitions(words))


def sharing(data: PeriodData) -> str:
    """Allocated GPU-hours by sharing mode and by confidence, so a modeled time-slice share is
    never read as a measured one."""
    modes, levels = list(measures.SHARING), list(measures.CONFIDENCE)
    bars = [
        Bar(name(data, row), [part(m, m, row[m], who(data, row)) for m in modes])  # type: ignore[arg-type]
        for row in data.showback
        if row["tenant_id"] != PLATFORM
    ]
    series = [(m, measures.SHARING[m][0]) for m in modes]
    chart = bar_chart("Allocated GPU-hours by sharing mode", bars, series, shown) if bars else ""
    keys = modes + levels
    head = [
        "tenant",
        *[(measures.SHARING.get(k, measures.CONFIDENCE.get(k))[0], NUM) for k in keys],
    ]  # type: ignore[index]
    body = [[td(name(data, row)), *figures(data, row, keys)] for row in data.showback]
    words = [*measures.SHARING.values(), *measures.CONFIDENCE.values()]
    note = (
        '<p class="note">The allocated GPU-hours twice: by sharing mode (whole GPU to '
        "process-mapped), then by confidence (high to unattributed); each adds up to the "
        "allocated GPU-hours.</p>"
    )
    return section(
        "Sharing modes and confidence",
        chart,
        table(head, body, foot(data, keys, keys), dict(words)),
        note,
        definitions(words),
    )


def work(data: PeriodData) -> str:
    """Productive work and what each unit of it cost."""
    head = ["tenant", *[(measures.WORK[k][0], NUM) for k in WORK_KEYS]]
    head += [(measures.WORK[k][0], NUM) for k in UNIT_COSTS]
    body = []
    for row in data.showback:
        scope = who(data, row)
        tokens = int(row["input_tokens"] or 0) + int(row["output_tokens"] or 0)  # type: ignore[call-overload]
        body.append(
            [
                td(name(data, row)),
                *figures(data, row, [*WORK_KEYS, "cost_per_successful_unit"]),
                fig(
                    "cost_per_successful_request", per(row["total_charge"], row["requests"]), scope
                ),
                fig("cost_per_million_tokens", per(row["total_charge"], tokens, 1_000_000), scope),
            ]
        )
    titles = dict(measures.WORK.values())
    parts = [table(head, body, foot(data, [*WORK_KEYS, *UNIT_COSTS], WORK_KEYS), titles)]
    if data.tenant and data.work:
        detail = [
            [
                td(r["unit_kind"]),
                td(r["source_system"]),
                td(shown(r["endpoint_id"])),
                *[
                    cell(m, data.work, data.scope | _work_scope(r))
                    for m in ("successful_units", "unsuccessful_units")
                ],
            ]
            for r in data.work
        ]
        head = ["unit", "source", "endpoint", ("successful", NUM), ("unsuccessful", NUM)]
        parts.append("<h3>By source</h3>" + table(head, detail))
    words = [measures.WORK[k] for k in (*WORK_KEYS, *UNIT_COSTS)]
    note = (
        '<p class="note">Each unit cost divides the whole charge by that kind of work: a '
        "tenant that both trains and calls the shared endpoint carries all of its charge in "
        'each. "-" where there is no such work.</p>'
    )
    return section("Productive work and unit cost", *parts, note, definitions(words))


def _work_scope(row: Row) -> dict[str, str]:
    return {
        "tenant": str(row["tenant_id"]),
        "unit-kind": str(row["unit_kind"]),
        "source": str(row["source_system"]),
        "endpoint": key(row["endpoint_id"]),
    }


def trend(data: PeriodData) -> str:
    """Month over month (the served periods up to this one): charges and allocated GPU-hours."""
    title = "Month over month"
    periods = data.periods()
    if len(periods) < 2:
        return section(
            title,
            '<p class="note">The served copy holds one period; the trend appears once it holds '
            "several.</p>",
        )
    groups = [("all", data.tenants[data.tenant].tenant_name)] if data.tenant else list(PARTIES)
    charts = []
    for metric, what in (
        ("total_charge", "Charges"),
        ("allocated_gpu_hours", "Allocated GPU-hours"),
    ):
        columns = []
        for p in periods:
            scope = data.scope | {"period": p}
            mine = [r for r in data.trend if r["period"] == p]
            status = str(mine[0]["status"]) if mine else ""
            if metric == "total_charge" and measured(mine, "unpriced_lines", scope):
                status += " + unpriced"
            parts = [
                part(g, metric, measured(mine, metric, _group(scope, g)), _group(scope, g))
                for g, _ in groups
            ]
            columns.append(Bar(p, parts, note=status, total=net(metric, scope)))
        label = f"{what} ({data.currency})" if metric == "total_charge" else what
        charts.append(f"<div><h3>{label}</h3>{column_chart(label, columns, groups, shown)}</div>")
    return section(title, f'<div class="pair">{"".join(charts)}</div>')


def _group(scope: dict[str, str], group: str) -> dict[str, str]:
    return scope if group == "all" else scope | {"party": group}
