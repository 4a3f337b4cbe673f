"""The showback site: a fleet page and one page per tenant, static HTML with inline SVG charts
and inline style, loading nothing (no script, no font, no URL), so the folder can be opened
from disk, mailed or served by anything.

`gpuledger site --period P --output DIR [--tenant T]` writes DIR/index.html and
DIR/tenants/<tenant_id>.html (with --tenant only that one: a folder to hand to that tenant).
A tenant's page is drawn from PeriodData.of_tenant: it holds no other tenant's id, name or
figure, and none of the fleet's totals.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

import gpuledger.site.charges as charges
import gpuledger.site.usage as usage
from gpuledger.site.data import PLATFORM, SUSPENSE, PeriodData, load_period
from gpuledger.site.markup import esc, fig, page

FOOTER = (
    "GPU Ledger showback, written by `gpuledger site` from the served copy of the marts. Each "
    "figure carries its mart value and scope in data attributes (data-metric, data-value)."
)
ROLES = {
    PLATFORM: "the central platform line: the pool cost not recovered from tenants",
    SUSPENSE: "the suspense line: usage no ownership interval covers, charged to no tenant "
    "until an owner is known",
}


def tenant_file(tenant_id: str) -> str:
    return f"{quote(tenant_id, safe='')}.html"


def _status(data: PeriodData) -> str:
    return "closed" if data.identity.is_closed else "provisional"


def fleet_page(data: PeriodData, links: bool = True) -> str:
    sections = [
        charges.identity(data),
        charges.party_totals(data),
        charges.charges_by_tenant(data),
        charges.charges_by_class(data),
        usage.ledgers(data),
        usage.idle_capacity(data),
        usage.sharing(data),
        usage.work(data),
        usage.trend(data),
    ]
    if links:
        items = "".join(
            f'<li><a href="tenants/{esc(tenant_file(t.tenant_id))}">{esc(t.tenant_name)}</a> '
            f"({esc(t.tenant_id)})</li>"
            for t in data.tenants.values()
        )
        sections.append(f"<section><h2>Tenant pages</h2><nav><ul>{items}</ul></nav></section>")
    subtitle = esc(f"the fleet · {_status(data)} · {data.currency}")
    title = f"GPU Ledger showback {data.period}"
    return page(f"{title} (fleet)", esc(title), subtitle, sections, FOOTER)


def tenant_page(data: PeriodData, links: bool = True) -> str:
    """The page of the tenant `data` was narrowed to (PeriodData.of_tenant)."""
    tenant = data.tenants[str(data.tenant)]
    who = {"tenant": tenant.tenant_id}
    if tenant.tenant_id in ROLES:
        described = esc(ROLES[tenant.tenant_id])
    else:
        described = (
            fig("department", tenant.department, who, tag="span", css="")
            + " · cost centre "
            + fig("cost_center", tenant.cost_center, who, tag="span", css="")
        )
    subtitle = (
        f"{esc(tenant.tenant_id)} · {described} · {esc(_status(data))} · {esc(data.currency)}"
    )
    sections = [
        charges.identity(data),
        charges.tenant_cards(data),
        charges.charges_by_class(data),
        charges.charge_lines(data),
        usage.ledgers(data),
        usage.idle_capacity(data),
        usage.sharing(data),
        usage.work(data),
        usage.trend(data),
    ]
    if links:
        sections.insert(0, '<p><a href="../index.html">The fleet page</a></p>')
    heading = fig("tenant_name", tenant.tenant_name, who, tag="span", css="")
    return page(
        f"{tenant.tenant_name}: GPU Ledger showback {data.period}",
        f"{heading}: showback {esc(data.period)}",
        subtitle,
        sections,
        FOOTER,
    )


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    staged = path.with_name(f".{path.name}.tmp")
    staged.write_text(text, encoding="utf-8")
    os.replace(staged, path)
    return path


def write_site(home: Path, period: str, output: Path, tenant: str | None = None) -> list[Path]:
    """Write the period's pages under `output` (only `tenant`'s when given): the paths written."""
    if output.exists() and not output.is_dir():
        raise FileNotFoundError(f"{output} is a file, not a folder; choose another --output")
    data = load_period(home, period)
    if tenant is not None:
        return [
            _write(
                output / "tenants" / tenant_file(tenant),
                tenant_page(data.of_tenant(tenant), links=False),
            )
        ]
    written = [_write(output / "index.html", fleet_page(data))]
    for tenant_id in data.tenants:
        page_text = tenant_page(data.of_tenant(tenant_id))
        written.append(_write(output / "tenants" / tenant_file(tenant_id), page_text))
    return written
