"""What an export reads, all through one connection to the served copy of the marts
(gpuledger.core.serving), so every figure comes from one build or close; never
warehouse.duckdb.

- the period's state and close identity (`dim_period`);
- its charge lines (`fact_chargeback`): the closed lines of a closed period, or the
  provisional lines of an open one, with the tenant's name, department and cost centre
  (`dim_tenant`) and the sharing modes and projects of the segments behind each line
  (`fact_charge_line_evidence` -> `fact_gpu_allocation`);
- for the reservation lines (and their corrections), the share of the reserved GPU-hours the
  tenant used inside its reservation in the period the line charges (`fact_gpu_allocation`
  guaranteed GPU-hours over the period's reservation lines' reserved GPU-hours).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import duckdb

from gpuledger.core.serving import connect_served, rows

RESERVATION_COMPONENTS = ("guaranteed_capacity", "fixed_capacity")


class ExportError(ValueError):
    """The export cannot be made as asked (the period's state, the output path); the message
    says why in one line."""


@dataclass(frozen=True)
class PeriodState:
    period: str
    status: str
    close_id: str | None
    total_amount: Decimal | None
    lines_sha256: str | None


@dataclass(frozen=True)
class ExportSource:
    state: PeriodState
    lines: list[dict[str, object]]
    # (period, tenant_id, gpu_class) -> used share of the reserved GPU-hours, in [0, 1]
    reservation_use: dict[tuple[str, str, str], Decimal]

    @property
    def provisional(self) -> bool:
        return self.state.status != "closed"


LINES_SQL = """
with lines as (
    select * from fact_chargeback
    where period = $period and status = $status and ($tenant is null or tenant_id = $tenant)
),

pieces as (
    select
        evidence.charge_line_id,
        string_agg(distinct allocation.sharing_mode, ',' order by allocation.sharing_mode)
            as sharing_modes,
        string_agg(distinct allocation.project_id, ',' order by allocation.project_id)
            as projects
    from fact_charge_line_evidence as evidence
    inner join fact_gpu_allocation as allocation
        on evidence.segment_id = allocation.segment_id
    where evidence.charge_line_id in (select lines.charge_line_id from lines)
    group by evidence.charge_line_id
)

select
    lines.*,
    tenants.tenant_name,
    tenants.department,
    tenants.cost_center,
    pieces.sharing_modes,
    pieces.projects
from lines
left join dim_tenant as tenants
    on lines.tenant_id = tenants.tenant_id
left join pieces
    on lines.charge_line_id = pieces.charge_line_id
order by lines.charge_class nulls first, lines.charge_component, lines.tenant_id,
    lines.gpu_class, lines.charge_line_id
"""

RESERVATION_USE_SQL = """
with reserved as (
    select period, tenant_id, gpu_class, sum(quantity) as reserved_gpu_hours
    from fact_chargeback
    where charge_class is null and charge_component in (select unnest($components))
        and period in (select unnest($periods))
    group by period, tenant_id, gpu_class
),

used as (
    select period, tenant_id, gpu_class, sum(guaranteed_gpu_hours) as used_gpu_hours
    from fact_gpu_allocation
    where period in (select unnest($periods))
    group by period, tenant_id, gpu_class
)

select
    reserved.period,
    reserved.tenant_id,
    reserved.gpu_class,
    reserved.reserved_gpu_hours,
    coalesce(used.used_gpu_hours, 0) as used_gpu_hours
from reserved
left join used
    on reserved.period = used.period
    and reserved.tenant_id = used.tenant_id
    and reserved.gpu_class = used.gpu_class
"""


def _state(con: duckdb.DuckDBPyConnection, period: str) -> PeriodState:
    found = rows(
        con,
        "select period, status, close_id, total_amount, lines_sha256 from dim_period "
        "where period = ?",
        [period],
    )
    if not found:
        raise ExportError(
            f"period {period} is not in the warehouse; run `gpuledger build` after ingesting "
            "evidence for it"
        )
    return PeriodState(**found[0])


def _reservation_use(
    con: duckdb.DuckDBPyConnection, lines: list[dict[str, object]]
) -> dict[tuple[str, str, str], Decimal]:
    periods = sorted(
        {
            str(line["corrects_period"] or line["period"])
            for line in lines
            if line["charge_component"] in RESERVATION_COMPONENTS
        }
    )
    if not periods:
        return {}
    use = {}
    params = {"components": list(RESERVATION_COMPONENTS), "periods": periods}
    for row in rows(con, RESERVATION_USE_SQL, params):
        reserved, used = row["reserved_gpu_hours"], row["used_gpu_hours"]
        share = min(Decimal(1), used / reserved) if reserved > 0 else Decimal(0)
        use[(row["period"], row["tenant_id"], row["gpu_class"])] = share
    return use


def read_source(home: Path, period: str, tenant: str | None, provisional: bool) -> ExportSource:
    """The lines to export: a closed period's closed lines, or with `provisional` an open
    period's provisional lines; a one-line error naming the state otherwise."""
    with connect_served(home) as con:
        state = _state(con, period)
        if state.status == "closed" and provisional:
            raise ExportError(
                f"period {period} is closed ({state.close_id}): export its closed lines "
                "without --provisional"
            )
        if state.status != "closed" and not provisional:
            raise ExportError(
                f"period {period} is {state.status}, not closed: close it "
                "(`gpuledger close`) or export its provisional lines with --provisional"
            )
        status = "closed" if state.status == "closed" else "provisional"
        lines = rows(con, LINES_SQL, {"period": period, "status": status, "tenant": tenant})
        if not lines:
            raise ExportError(
                f"period {period} has no {status} charge lines"
                + (f" for tenant {tenant}" if tenant else "")
            )
        return ExportSource(state, lines, _reservation_use(con, lines))
