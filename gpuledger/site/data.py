"""What a showback page shows, read from the served copy of the marts (gpuledger.core.serving)
in one connection, so every figure of a page comes from the same build.

Nothing here renders: `load_period` returns the period's rows as the marts hold them, and
`PeriodData.of_tenant` the part a tenant's page may show (its own rows, nothing of another
tenant). The few figures the marts do not hold are derived here from theirs: sums over tenants,
charge groups (tenants, suspense, central platform) and the cost per successful request and
per million tokens (the semantic layer's cost_per_successful_request and
cost_per_million_tokens, rounded to the cent as fact_showback rounds its cost per job).
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import yaml

from gpuledger.core.home import PROJECT_DIR
from gpuledger.core.serving import connect_served, rows
from gpuledger.output import Unpriced

Row = dict[str, object]

PLATFORM = "__platform__"
SUSPENSE = "__unattributed__"
# the parties a period's charges are totalled by: tenants owe theirs, the suspense line waits
# for an owner, the central platform line is the pool cost no tenant was charged
PARTIES = (
    ("tenants", "tenants"),
    ("suspense", "unattributed (suspense)"),
    ("platform", "central platform"),
)
CENT = Decimal("0.01")


def party(tenant_id: str) -> str:
    return {PLATFORM: "platform", SUSPENSE: "suspense"}.get(tenant_id, "tenants")


@functools.cache
def rate_card_components() -> frozenset[str]:
    """The components the rate card prices (dbt_project.yml vars.rate_card_components)."""
    project = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text())
    return frozenset(project["vars"]["rate_card_components"])


def marked_showback(row: Row) -> Row:
    """A showback row as shown: a total that leaves unpriced lines out reads `X + unpriced`."""
    if not row.get("unpriced_lines"):
        return row
    return row | {
        key: Unpriced(row[key])
        for key in ("total_charge", "cost_per_successful_unit")
        if isinstance(row[key], Decimal)
    }


def marked_line(row: Row) -> Row:
    """A charge line as shown: a rate-card line no rate priced reads `unpriced`, never 0.00."""
    if row["unit_price"] is None and row["charge_component"] in rate_card_components():
        return row | {"unit_price": Unpriced(), "amount": Unpriced()}
    return row


def total(values: Iterable[object]) -> Decimal | int | None:
    """SQL's sum: None when every value is None (unknown is not 0)."""
    known = [v for v in values if v is not None]
    if not known:
        return None
    return sum(known[1:], start=known[0])  # type: ignore[no-any-return]


def per(amount: object, count: object, scale: int = 1) -> Decimal | None:
    """amount x scale / count to the cent; None without work to divide by."""
    if not isinstance(amount, Decimal) or not count:
        return None
    return (amount * scale / Decimal(str(count))).quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class Tenant:
    tenant_id: str
    tenant_name: str
    department: str | None
    cost_center: str | None

    @property
    def party(self) -> str:
        return party(self.tenant_id)


@dataclass(frozen=True)
class CloseIdentity:
    """dim_period's row of the period: the close holding it, or open (provisional)."""

    period: str
    status: str
    close_id: str | None = None
    close_version: int | None = None
    closed_at: dt.datetime | None = None
    approver: str | None = None
    lines_sha256: str | None = None
    line_count: int | None = None
    total_amount: Decimal | None = None

    @property
    def is_closed(self) -> bool:
        return self.status == "closed" and self.close_id is not None


@dataclass(frozen=True)
class PeriodData:
    """The rows of one period (and, for the trend, the periods up to it) a page shows."""

    period: str
    status: str
    currency: str
    identity: CloseIdentity
    tenants: dict[str, Tenant]
    showback: list[Row]
    lines: list[Row]
    idle: list[Row]
    work: list[Row]
    trend: list[Row]
    tenant: str | None = None  # set on a tenant's part: every figure is scoped to it

    @property
    def scope(self) -> dict[str, str]:
        """What every figure of the data is of: the period, and the tenant of a tenant's part."""
        return {"period": self.period} | ({"tenant": self.tenant} if self.tenant else {})

    def of_tenant(self, tenant_id: str) -> PeriodData:
        """Only the tenant's own rows: nothing of another tenant reaches its page."""
        if tenant_id not in self.tenants:
            raise LookupError(f"no showback for period {self.period} and tenant {tenant_id}")

        def own(table: Sequence[Row]) -> list[Row]:
            return [row for row in table if row["tenant_id"] == tenant_id]

        return replace(
            self,
            tenant=tenant_id,
            tenants={tenant_id: self.tenants[tenant_id]},
            showback=own(self.showback),
            lines=own(self.lines),
            idle=own(self.idle),
            work=own(self.work),
            trend=own(self.trend),
        )

    def sum(self, column: str, table: Sequence[Row] | None = None) -> Decimal | int | None:
        return total(row[column] for row in (self.showback if table is None else table))

    def party_totals(self) -> list[tuple[str, str, Decimal, int]]:
        """(party, label, charges, unpriced lines) of each party with showback rows."""
        return [
            (
                key,
                label,
                Decimal(self.sum("total_charge", mine) or 0),
                int(self.sum("unpriced_lines", mine) or 0),
            )
            for key, label in PARTIES
            if (mine := [r for r in self.showback if party(str(r["tenant_id"])) == key])
        ]

    def periods(self) -> list[str]:
        return sorted({str(row["period"]) for row in self.trend})


SHOWBACK = (
    "select * from marts.fact_showback where period = ? order by "
    "case tenant_id when '__unattributed__' then 1 when '__platform__' then 2 else 0 end, tenant_id"
)
LINES = (
    "select * from marts.fact_chargeback where period = ? "
    "order by tenant_id, charge_component, gpu_class, rate_card_version, unit_price, charge_line_id"
)
IDLE = (
    "select period, gpu_class, idle_class, default_payer, tenant_id, sum(gpu_hours) as gpu_hours "
    "from marts.fact_idle_capacity where period = ? group by all order by all"
)
WORK = (
    "select period, tenant_id, unit_kind, source_system, endpoint_id, "
    "sum(successful_units) as successful_units, sum(unsuccessful_units) as unsuccessful_units "
    "from marts.fact_productive_work where period = ? group by all order by all"
)
TREND = (
    "select period, tenant_id, status, total_charge, unpriced_lines, allocated_gpu_hours "
    "from marts.fact_showback where period <= ? order by period, tenant_id"
)


def load_period(home: Path, period: str) -> PeriodData:
    """Every row a site or report of `period` shows, from one served copy."""
    with connect_served(home) as con:
        showback = rows(con, SHOWBACK, [period])
        if not showback:
            raise LookupError(
                f"no showback for period {period}; run `gpuledger build` after ingesting "
                "evidence for it"
            )
        known = {
            str(row["tenant_id"]): row
            for row in rows(con, "select * from marts.dim_tenant order by tenant_id")
        }
        closes = rows(con, "select * from marts.dim_period where period = ?", [period])
        data = PeriodData(
            period=period,
            status=str(showback[0]["status"]),
            currency=str(showback[0]["currency"] or ""),
            identity=_identity(period, closes),
            tenants={
                str(row["tenant_id"]): _tenant(row, known.get(str(row["tenant_id"])))
                for row in showback
            },
            showback=showback,
            lines=rows(con, LINES, [period]),
            idle=rows(con, IDLE, [period]),
            work=rows(con, WORK, [period]),
            trend=rows(con, TREND, [period]),
        )
    return data


def _tenant(showback: Row, known: Row | None) -> Tenant:
    tenant_id = str(showback["tenant_id"])
    if known is None:
        return Tenant(tenant_id, str(showback["tenant_name"] or tenant_id), None, None)
    return Tenant(
        tenant_id,
        str(known["tenant_name"] or tenant_id),
        known["department"],  # type: ignore[arg-type]
        known["cost_center"],  # type: ignore[arg-type]
    )


def _identity(period: str, closes: Sequence[Row]) -> CloseIdentity:
    if not closes:
        return CloseIdentity(period, "open")
    row = closes[0]
    fields = CloseIdentity.__dataclass_fields__
    return CloseIdentity(**{key: value for key, value in row.items() if key in fields})  # type: ignore[arg-type]
