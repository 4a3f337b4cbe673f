"""Charts as inline SVG, drawn here rather than by a vendored chart library: a page needs no
script, works offline and with scripts disabled, and every bar carries the figure it draws
(`data-metric`, `data-value` and its scope, as the tables do), so a test reads the chart's
numbers as exactly as the table's.

Two shapes: horizontal stacked bars (one bar per tenant, GPU class, ...; negative parts, such
as credits, stack left of zero) and vertical stacked columns (one per period: the trend).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#59a14f",
    "#e15759",
    "#76b7b2",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
)
LABEL_W = 190
PLOT_W = 720
VALUE_W = 110
COLUMNS_W = 440
BAR_H = 18
GAP = 10
LEGEND_ROW = 20


@dataclass(frozen=True)
class Part:
    """One stacked part of a bar: its series (colour, legend), value and data attributes."""

    series: str
    value: Decimal | int | None
    attrs: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Bar:
    label: str
    parts: Sequence[Part]
    note: str = ""  # a second label line (a period's status)
    group: str = ""  # bars of one group (a tenant's ledgers) are drawn under its heading
    total: Mapping[str, str] = field(default_factory=dict)  # the net figure's data attributes


def data_value(value: object) -> str:
    """A figure as its data-value attribute: the mart's value as str(), None as `null`."""
    return "null" if value is None else str(value)


def _net(bar: Bar) -> Decimal | int | None:
    known = [p.value for p in bar.parts if p.value is not None]
    return sum(known[1:], start=known[0]) if known else None


def _total_attrs(bar: Bar, net: Decimal | int | None) -> Mapping[str, str]:
    """The bar's net figure: the scope it names, and the value drawn (the sum of its parts)."""
    return {**bar.total, "data-value": data_value(net)} if bar.total else {}


def _attrs(attrs: Mapping[str, str]) -> str:
    return "".join(f' {key}="{html.escape(value)}"' for key, value in attrs.items())


def _text(
    x: float,
    y: float,
    text: str,
    anchor: str = "start",
    css: str = "",
    attrs: Mapping[str, str] | None = None,
) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" class="{css}"'
        f"{_attrs(attrs or {})}>{html.escape(text)}</text>"
    )


def colours(series: Sequence[tuple[str, str]]) -> dict[str, str]:
    return {key: PALETTE[i % len(PALETTE)] for i, (key, _) in enumerate(series)}


def _legend(
    series: Sequence[tuple[str, str]], bars: Sequence[Bar], width: int
) -> tuple[list[str], int]:
    """The swatches of the series the bars draw (colours stay those of the whole series)."""
    colour = colours(series)
    drawn = {part.series for bar in bars for part in bar.parts if part.value}
    out, x, y = [], 0.0, 12.0
    for key, name in series:
        if key not in drawn:
            continue
        step = 22 + 7 * len(name)
        if x + step > width and x > 0:
            x, y = 0.0, y + LEGEND_ROW
        out.append(
            f'<rect x="{x:.1f}" y="{y - 10:.1f}" width="12" height="12" fill="{colour[key]}"/>'
        )
        out.append(_text(x + 16, y, name, css="legend"))
        x += step
    return out, int(y + LEGEND_ROW // 2)


def _extent(bars: Sequence[Bar]) -> tuple[float, float]:
    low = min(
        (sum(float(p.value) for p in b.parts if p.value and p.value < 0) for b in bars), default=0
    )
    high = max(
        (sum(float(p.value) for p in b.parts if p.value and p.value > 0) for b in bars), default=0
    )
    return min(low, 0.0), max(high, 0.0) or 1.0


def bar_chart(
    title: str,
    bars: Sequence[Bar],
    series: Sequence[tuple[str, str]],
    figure: Callable[[Decimal | int | None], str],
) -> str:
    """Horizontal stacked bars; the bar's net total is written at its end."""
    width = LABEL_W + PLOT_W + VALUE_W
    legend, top = _legend(series, bars, width)
    colour = colours(series)
    low, high = _extent(bars)
    scale = PLOT_W / (high - low)
    zero = LABEL_W + (-low) * scale
    out, y, group = list(legend), float(top), ""
    for bar in bars:
        if bar.group and bar.group != group:
            group = bar.group
            out.append(_text(4, y + BAR_H - 5, group, css="group"))
            y += BAR_H + GAP / 2
        out.append(_text(LABEL_W - 8, y + BAR_H - 5, bar.label, "end", "label"))
        right, left = zero, zero
        for part in bar.parts:
            if not part.value:
                continue
            length = abs(float(part.value)) * scale
            if part.value > 0:
                x, right = right, right + length
            else:
                left -= length
                x = left
            tip = f"{bar.label}: {dict(series)[part.series]} {figure(part.value)}"
            out.append(
                f'<rect x="{x:.2f}" y="{y:.1f}" width="{max(length, 0.5):.2f}" height="{BAR_H}" '
                f'fill="{colour[part.series]}"{_attrs(part.attrs)}>'
                f"<title>{html.escape(tip)}</title></rect>"
            )
        net = _net(bar)
        extra = _total_attrs(bar, net)
        out.append(
            _text(max(right, zero) + 6, y + BAR_H - 5, figure(net), css="value", attrs=extra)
        )
        y += BAR_H + GAP
    height = int(y) + 4
    out.append(
        f'<line x1="{zero:.1f}" y1="{top - 4}" x2="{zero:.1f}" y2="{height - 4}" class="axis"/>'
    )
    return _svg(title, width, height, out)


def column_chart(
    title: str,
    columns: Sequence[Bar],
    series: Sequence[tuple[str, str]],
    figure: Callable[[Decimal | int | None], str],
) -> str:
    """Vertical stacked columns (positive parts), one per period, the total above each."""
    plot_h, col_w, step = 180, 56, 110
    width = max(COLUMNS_W, 60 + step * len(columns))
    legend, top = _legend(series, columns, width)
    colour = colours(series)
    high = max((sum(float(p.value) for p in c.parts if p.value) for c in columns), default=0) or 1.0
    base = top + 18 + plot_h
    out = list(legend)
    for i, column in enumerate(columns):
        x = 40 + i * step
        level = float(base)
        for part in column.parts:
            if not part.value:
                continue
            length = float(part.value) / high * plot_h
            level -= length
            tip = f"{column.label}: {dict(series)[part.series]} {figure(part.value)}"
            out.append(
                f'<rect x="{x}" y="{level:.2f}" width="{col_w}" height="{max(length, 0.5):.2f}" '
                f'fill="{colour[part.series]}"{_attrs(part.attrs)}>'
                f"<title>{html.escape(tip)}</title></rect>"
            )
        net = _net(column)
        extra = _total_attrs(column, net)
        out.append(_text(x + col_w / 2, level - 5, figure(net), "middle", "value", extra))
        out.append(_text(x + col_w / 2, base + 15, column.label, "middle", "label"))
        out.append(_text(x + col_w / 2, base + 29, column.note, "middle", "note"))
    out.append(f'<line x1="30" y1="{base}" x2="{width - 10}" y2="{base}" class="axis"/>')
    return _svg(title, width, base + 36, out)


def _svg(title: str, width: int, height: int, body: Sequence[str]) -> str:
    return (
        f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}">'
        f"<title>{html.escape(title)}</title>" + "".join(body) + "</svg>"
    )
