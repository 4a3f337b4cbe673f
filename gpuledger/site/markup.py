"""The HTML of a page: figures that carry their value and scope, tables, definition lists and
the page itself (its style inlined: a page is one file that loads nothing)."""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal

from gpuledger.output import Unpriced
from gpuledger.site.svg import data_value

Scope = Mapping[str, str]

STYLE = """
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2733;
background:#f4f6f8}
header{background:#1f3a5f;color:#fff;padding:18px 32px}
header h1{margin:0;font-size:22px;font-weight:600}
header .sub{opacity:.85;margin-top:4px}
main{max-width:1240px;margin:0 auto;padding:8px 32px 40px}
section{background:#fff;border:1px solid #dde3ea;border-radius:6px;margin:18px 0;padding:14px 20px}
h2{font-size:17px;margin:2px 0 10px;color:#1f3a5f}
h3{font-size:14px;margin:14px 0 6px}
.identity{border-left:5px solid #2e7d32}
.identity code{font-size:12px;word-break:break-all}
.provisional{background:#fff4e5;border:1px solid #f0a040;border-left:5px solid #e07b00}
.provisional strong{color:#a35400}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:0}
.card{flex:1 1 180px;border:1px solid #dde3ea;border-radius:6px;padding:10px 14px;
background:#fafbfc}
.card .what{font-size:12px;color:#51606f}
.card .amount{font-size:20px;font-weight:600;margin:2px 0}
.card.sum{background:#eef3f9}
.scroll{overflow-x:auto}
dl.defs{margin:10px 0 0;font-size:12.5px;color:#3b4856;columns:3 250px;column-gap:28px;
border-top:1px solid #e5e9ee;padding-top:6px}
dl.defs div{break-inside:avoid;margin-top:6px}
dl.defs dt{font-weight:600}
dl.defs dd{margin:0}
table{border-collapse:collapse;width:100%;margin:6px 0 4px;font-size:13px}
th,td{padding:4px 8px;border-bottom:1px solid #e5e9ee;text-align:left;vertical-align:top}
th{background:#f0f3f6;font-weight:600}
th[title]{text-decoration:underline dotted #8896a5;cursor:help}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th.num{text-align:right}
td.id{white-space:nowrap}
tfoot td{font-weight:600;background:#f7f9fb}
tfoot tr.grand td{border-top:2px solid #1f3a5f}
.chart{max-width:100%;height:auto;display:block;margin:6px 0}
.chart text{font-size:11px;fill:#1d2733}
.chart text.value{font-weight:600}
.chart text.note,.chart text.legend{fill:#51606f}
.chart text.group{font-weight:600;font-size:12px}
.pair{display:flex;flex-wrap:wrap;gap:24px}
.chart .axis{stroke:#8896a5;stroke-width:1}
p.note{color:#51606f;font-size:12.5px;margin:4px 0 8px}
nav ul{columns:3;margin:4px 0;padding-left:18px}
a{color:#1f5fa8}
footer{color:#6b7785;font-size:12px;max-width:1240px;margin:0 auto;padding:0 32px 24px}
"""


def shown(value: object) -> str:
    """A figure as a reader sees it: money to the cent, GPU-hours to 1e-3, counts grouped."""
    if value is None:
        return "-"
    if isinstance(value, Unpriced):
        return value.render(shown)
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, Decimal):
        scale = 2 if value.as_tuple().exponent == -2 else 3
        return f"{value:,.{scale}f}"
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S UTC")
    return str(value)


def esc(text: object) -> str:
    return html.escape(str(text))


def attrs(metric: str, value: object, scope: Scope) -> dict[str, str]:
    """The data attributes that say which mart figure an element shows."""
    return {
        "data-metric": metric,
        **{f"data-{key}": str(val) for key, val in scope.items()},
        "data-value": data_value(value),
    }


def fig(
    metric: str,
    value: object,
    scope: Scope,
    display: object = None,
    tag: str = "td",
    css: str = "num",
) -> str:
    """A figure: `value` (the mart's) in its data attributes, `display` (default value) shown."""
    text = shown(value if display is None else display)
    data = "".join(f' {k}="{esc(v)}"' for k, v in attrs(metric, value, scope).items())
    klass = f' class="{css}"' if css else ""
    return f"<{tag}{klass}{data}>{esc(text)}</{tag}>"


def td(text: object, css: str = "") -> str:
    return f'<td class="{css}">{esc(text)}</td>' if css else f"<td>{esc(text)}</td>"


def table(
    head: Sequence[str | tuple[str, str]],
    body: Iterable[Sequence[str]],
    foot: Iterable[tuple[str, Sequence[str]]] = (),
    titles: Mapping[str, str] | None = None,
) -> str:
    """head: labels (or (label, css)), each with its definition from `titles` as a tooltip;
    body rows and foot (css, cells) hold rendered cells."""
    cells = []
    for item in head:
        name, css = item if isinstance(item, tuple) else (item, "")
        klass = f' class="{css}"' if css else ""
        hint = f' title="{esc(titles[name])}"' if titles and name in titles else ""
        cells.append(f"<th{klass}{hint}>{esc(name)}</th>")
    rows = "".join("<tr>" + "".join(row) + "</tr>" for row in body)
    footer = "".join(f'<tr class="{css}">' + "".join(row) + "</tr>" for css, row in foot)
    return (
        f'<div class="scroll"><table><thead>'
        f"<tr>{''.join(cells)}</tr></thead><tbody>{rows}</tbody>"
        + (f"<tfoot>{footer}</tfoot>" if footer else "")
        + "</table></div>"
    )


def definitions(items: Iterable[tuple[str, str]]) -> str:
    """What each measure of a section means, beside it (below, in columns)."""
    return (
        '<dl class="defs">'
        + "".join(f"<div><dt>{esc(term)}</dt><dd>{esc(text)}</dd></div>" for term, text in items)
        + "</dl>"
    )


def section(title: str, *parts: str, css: str = "", anchor: str = "") -> str:
    ident = f' id="{anchor}"' if anchor else ""
    klass = f' class="{css}"' if css else ""
    return f"<section{ident}{klass}><h2>{esc(title)}</h2>{''.join(parts)}</section>"


def page(title: str, heading: str, subtitle: str, sections: Sequence[str], footer: str) -> str:
    """A whole page; `heading` and `subtitle` are HTML (their figures carry attributes)."""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>"
        f'<header><h1>{heading}</h1><div class="sub">{subtitle}</div></header>'
        f"<main>{''.join(sections)}</main><footer>{esc(footer)}</footer></body></html>\n"
    )
