"""What the sections share: a figure's value found by its scope, as the test finds it in the
marts (each scope key names a column; `party` groups tenant ids), and chart parts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal

from gpuledger.output import Unpriced
from gpuledger.site.data import PeriodData, Row, marked_showback, party, total
from gpuledger.site.markup import attrs, fig, td
from gpuledger.site.svg import Part

NUM = "num"
# a scope key (data-<key> on the page) and the mart column it selects on
SCOPE_COLUMNS = {
    "period": "period",
    "tenant": "tenant_id",
    "component": "charge_component",
    "gpu-class": "gpu_class",
    "line": "charge_line_id",
    "idle-class": "idle_class",
    "payer": "default_payer",
    "unit-kind": "unit_kind",
    "source": "source_system",
    "endpoint": "endpoint_id",
}


def key(value: object) -> str:
    """A scope value: the column's value, '' for null."""
    return "" if value is None else str(value)


def _selected(row: Row, scope: Mapping[str, str]) -> bool:
    for name, value in scope.items():
        if name == "party":
            if party(str(row["tenant_id"])) != value:
                return False
        elif key(row[SCOPE_COLUMNS[name]]) != value:
            return False
    return True


def measured(rows: Iterable[Row], column: str, scope: Mapping[str, str]) -> Decimal | int | None:
    """The sum of `column` over the rows the scope selects (None when all are null)."""
    return total(row[column] for row in rows if _selected(row, scope))


def cell(
    metric: str,
    rows: Iterable[Row],
    scope: dict[str, str],
    column: str | None = None,
    display: object = None,
) -> str:
    return fig(metric, measured(rows, column or metric, scope), scope, display)


def part(series: str, metric: str, value: Decimal | int | None, scope: dict[str, str]) -> Part:
    return Part(series, value, attrs(metric, value, scope))


def net(metric: str, scope: dict[str, str]) -> dict[str, str]:
    """A bar's net figure: its metric and scope (the chart adds the value it drew)."""
    return attrs(metric, None, scope)


def who(data: PeriodData, row: Row) -> dict[str, str]:
    return data.scope | {"tenant": str(row["tenant_id"])}


def name(data: PeriodData, row: Row) -> str:
    return data.tenants[str(row["tenant_id"])].tenant_name


def unpriced(value: Decimal | int | None, lines: object) -> object:
    """How a total is shown: `X + unpriced` when unpriced lines are left out of it."""
    return Unpriced(value) if lines and isinstance(value, Decimal) else None


def figures(data: PeriodData, row: Row, keys: Sequence[str]) -> list[str]:
    marked = marked_showback(row)
    return [fig(k, row[k], who(data, row), marked[k]) for k in keys]


def foot(
    data: PeriodData, keys: Sequence[str], summed: Sequence[str]
) -> list[tuple[str, list[str]]]:
    """The fleet's total row of a per-tenant table (a tenant's page has none)."""
    if data.tenant:
        return []
    cells = [fig(k, data.sum(k), data.scope) if k in summed else td("") for k in keys]
    return [("grand", [td("all tenants"), *cells])]
