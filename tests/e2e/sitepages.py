"""Read a showback page back: every figure (an element with data-metric) with its value, scope
and text, the page's visible text, and the figure's expected value found in the served marts
by this module's own queries (one per metric), for tests/e2e/test_site.py."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from html.parser import HTMLParser

import duckdb

# metric -> (mart, SQL aggregate) of the figures a page may show
SHOWBACK_SUMS = (
    "reserved_gpu_hours",
    "allocated_gpu_hours",
    "guaranteed_gpu_hours",
    "borrowed_gpu_hours",
    "active_equivalent_gpu_hours",
    "idle_allocated_gpu_hours",
    "telemetry_unknown_gpu_hours",
    "high_confidence_gpu_hours",
    "medium_confidence_gpu_hours",
    "modeled_gpu_hours",
    "unattributed_gpu_hours",
    "whole_gpu_hours",
    "mig_gpu_hours",
    "vgpu_gpu_hours",
    "timeslice_gpu_hours",
    "process_gpu_hours",
    "successful_jobs",
    "unsuccessful_jobs",
    "requests",
    "input_tokens",
    "output_tokens",
    "total_charge",
    "unpriced_lines",
)
METRICS = {
    **{name: ("fact_showback", f"sum({name})") for name in SHOWBACK_SUMS},
    # one tenant's row (the test asserts a tenant scope)
    "cost_per_successful_unit": ("fact_showback", "max(cost_per_successful_unit)"),
    "reservation_occupancy_ratio": ("fact_showback", "max(reservation_occupancy_ratio)"),
    "amount": ("fact_chargeback", "sum(amount)"),
    "quantity": ("fact_chargeback", "max(quantity)"),
    "unit_price": ("fact_chargeback", "max(unit_price)"),
    "gpu_hours": ("fact_idle_capacity", "sum(gpu_hours)"),
    "successful_units": ("fact_productive_work", "sum(successful_units)"),
    "unsuccessful_units": ("fact_productive_work", "sum(unsuccessful_units)"),
    **{
        name: ("dim_period", f"max({name})")
        for name in (
            "close_id",
            "close_version",
            "approver",
            "closed_at",
            "lines_sha256",
            "line_count",
            "total_amount",
        )
    },
    **{
        name: ("dim_tenant", f"max({name})")
        for name in ("tenant_name", "department", "cost_center")
    },
}
PER_TENANT_ROW = {
    "cost_per_successful_unit",
    "reservation_occupancy_ratio",
    "quantity",
    "unit_price",
}
# cost per request and per million tokens: the semantic layer's ratios, to the cent
DERIVED = {
    "cost_per_successful_request": ("sum(requests)", 1),
    "cost_per_million_tokens": ("sum(input_tokens + output_tokens)", 1_000_000),
}
COLUMNS = {
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
PARTIES = {
    "tenants": "tenant_id not in ('__platform__', '__unattributed__')",
    "suspense": "tenant_id = '__unattributed__'",
    "platform": "tenant_id = '__platform__'",
}
NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


@dataclass(frozen=True)
class Figure:
    tag: str
    metric: str
    value: str
    scope: dict[str, str]
    text: str


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.figures: list[Figure] = []
        self.open: list[tuple[str, dict[str, str], list[str]]] = []
        self.text: list[str] = []
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if "href" in values:
            self.hrefs.append(values["href"])
        if "data-metric" in values:
            self.open.append((tag, values, []))

    def handle_endtag(self, tag: str) -> None:
        if self.open and self.open[-1][0] == tag:
            name, values, text = self.open.pop()
            scope = {
                k[5:]: v
                for k, v in values.items()
                if k.startswith("data-") and k not in ("data-metric", "data-value")
            }
            self.figures.append(
                Figure(name, values["data-metric"], values["data-value"], scope, "".join(text))
            )

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        for _, _, text in self.open:
            text.append(data)


@dataclass(frozen=True)
class Page:
    figures: list[Figure]
    text: str
    hrefs: list[str]

    def numbers(self) -> set[str]:
        """Every number the page shows or carries (its text and figure values)."""
        return set(NUMBER.findall(self.text)) | numbers(self.figures)


def numbers(figures: Iterable[Figure]) -> set[str]:
    """The figures' numbers, as shown and as carried, that could tell one tenant's apart: four
    digits or more, and not zero."""
    found = set()
    for figure in figures:
        found |= set(NUMBER.findall(figure.value)) | set(NUMBER.findall(figure.text))
    return {n for n in found if len(re.sub(r"\D", "", n)) >= 4 and Decimal(n.replace(",", ""))}


def read_page(html: str) -> Page:
    reader = _Reader()
    reader.feed(html)
    reader.close()
    assert not reader.open, f"unclosed figures: {reader.open[:3]}"
    return Page(reader.figures, " ".join(reader.text), reader.hrefs)


def _where(scope: dict[str, str]) -> tuple[str, list[str]]:
    clauses, params = ["true"], []
    for key, value in scope.items():
        if key == "party":
            clauses.append(PARTIES[value])
        elif value == "":
            clauses.append(f"{COLUMNS[key]} is null")
        else:
            clauses.append(f"{COLUMNS[key]} = ?")
            params.append(value)
    return " and ".join(clauses), params


def _text(value: object) -> str:
    return "null" if value is None else str(value)


def expected(con: duckdb.DuckDBPyConnection, figure: Figure) -> str:
    """The figure's value as this test finds it in the served marts."""
    where, params = _where(figure.scope)
    if figure.metric in DERIVED:
        work, scale = DERIVED[figure.metric]
        charge, units = con.execute(
            f"select sum(total_charge), {work} from fact_showback where {where}", params
        ).fetchone()
        if not units:
            return "null"
        return str((charge * scale / Decimal(units)).quantize(Decimal("0.01"), ROUND_HALF_UP))
    mart, aggregate = METRICS[figure.metric]
    if figure.metric in PER_TENANT_ROW:
        assert "tenant" in figure.scope, figure
    (value,) = con.execute(f"select {aggregate} from {mart} where {where}", params).fetchone()
    return _text(value)
