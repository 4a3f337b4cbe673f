"""The worked examples of the source documents, end to end from sacct text to fact_chargeback.

Each scenario writes sacct --parsable2 text, an inventory and a policy directory, runs the
real `gpuledger ingest`, `build` and `close`, and reads `marts.fact_chargeback`.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

from tests.conftest import (
    Job,
    run_cli,
    sacct_run_after,
    sql,
    write_inventory,
    write_policy,
    write_sacct,
)

MARCH = dt.datetime(2026, 3, 1)


def _ingest_and_close(home: Path, policy: Path, tmp: Path, jobs: list[Job], nodes, period: str):
    sacct = write_sacct(tmp / "sacct.txt", jobs)
    inventory = write_inventory(tmp / "inventory.csv", nodes)
    assert run_cli(home, policy, "ingest", "inventory", "--file", str(inventory)).exit_code == 0
    landed = run_cli(
        home, policy, "ingest", "slurm", "--file", str(sacct), *sacct_run_after(period)
    )
    assert landed.exit_code == 0, landed.stderr
    assert f"read {len(jobs)}, landed {len(jobs)}, quarantined 0" in landed.stdout
    return run_cli(home, policy, "close", "--period", period, "--approver", "finance")


def _amounts(home: Path, period: str) -> dict[tuple[str, str], Decimal]:
    rows = sql(
        home,
        "select tenant_id, charge_component, sum(amount) from marts.fact_chargeback "
        "where period = ? group by all",
        [period],
    )
    return {(tenant, component): amount for tenant, component, amount in rows}


def _tenant_totals(home: Path, period: str) -> dict[str, Decimal]:
    rows = sql(
        home,
        "select tenant_id, sum(amount) from marts.fact_chargeback where period = ? group by all",
        [period],
    )
    return dict(rows)


def test_seed_000_allocation_chargeback_atlas_and_boreal(tmp_path: Path, home: Path) -> None:
    """Seed 000: $2.00 per allocated GPU-hour; Atlas reserves 8 GPUs for 100 hours and occupies
    720 GPU-hours in 90 accepted runs (Boreal: 4 GPUs, 360 GPU-hours, 120 runs)."""
    window_end = MARCH + dt.timedelta(hours=100)
    policy = write_policy(
        tmp_path / "policy",
        {
            "tenants": ["atlas,Team Atlas,research,cc-1", "boreal,Team Boreal,research,cc-2"],
            "ownership": [
                "slurm_account,atlas,atlas,,2026-01-01T00:00:00Z,",
                "slurm_account,boreal,boreal,,2026-01-01T00:00:00Z,",
            ],
            "reservations": [
                f"atlas,h100,8,research,{MARCH:%Y-%m-%dT%H:%M:%SZ},{window_end:%Y-%m-%dT%H:%M:%SZ}",
                f"boreal,h100,4,research,{MARCH:%Y-%m-%dT%H:%M:%SZ},{window_end:%Y-%m-%dT%H:%M:%SZ}",
            ],
            "rate_card": ["seed000,2026-01-01T00:00:00Z,,h100,allocated_gpu_hour,2.00,USD"],
            "settings": ["charging_model,allocation_rate", "currency,USD"],
        },
    )
    atlas = [
        Job(
            f"{100 + k}",
            "atlas",
            MARCH + dt.timedelta(hours=k),
            MARCH + dt.timedelta(hours=k + 1),
            8,
            "node-a",
        )
        for k in range(90)
    ]
    boreal = [
        Job(
            f"{300 + 4 * r + slot}",
            "boreal",
            MARCH + dt.timedelta(hours=3 * r),
            MARCH + dt.timedelta(hours=3 * r + 3),
            1,
            "node-b",
        )
        for r in range(30)
        for slot in range(4)
    ]
    closed = _ingest_and_close(
        home, policy, tmp_path, atlas + boreal, {"node-a": 8, "node-b": 4}, "2026-03"
    )
    assert closed.exit_code == 0, closed.stdout + closed.stderr

    lines = sql(
        home,
        "select tenant_id, quantity, unit_price, amount, status from marts.fact_chargeback "
        "where period = '2026-03' order by tenant_id",
    )
    assert lines == [
        ("atlas", Decimal("720.000000"), Decimal("2.000000"), Decimal("1440.00"), "closed"),
        ("boreal", Decimal("360.000000"), Decimal("2.000000"), Decimal("720.00"), "closed"),
    ]
    showback = sql(
        home,
        "select tenant_id, reserved_gpu_hours, allocated_gpu_hours, successful_jobs, total_charge "
        "from marts.fact_showback where period = '2026-03' order by tenant_id",
    )
    assert showback == [
        ("atlas", Decimal("800.000000"), Decimal("720.000000"), 90, Decimal("1440.00")),
        ("boreal", Decimal("400.000000"), Decimal("360.000000"), 120, Decimal("720.00")),
    ]


def test_seed_001_cost_pool_production_research_platform(tmp_path: Path, home: Path) -> None:
    """Seed 001: a $120,000 pool, 60% fixed. Production reserves 60% of capacity and research
    20%; they use 18,000 and 12,000 allocated GPU-hours. Production $72,000, research $33,600,
    platform $14,400, to the cent."""
    june, july = dt.datetime(2026, 6, 1), dt.datetime(2026, 7, 1)
    policy = write_policy(
        tmp_path / "policy",
        {
            "tenants": ["production,Production,prod,cc-p", "research,Research,research,cc-r"],
            "ownership": [
                "slurm_account,prod,production,,2026-01-01T00:00:00Z,",
                "slurm_account,research,research,,2026-01-01T00:00:00Z,",
            ],
            "reservations": [
                "production,h100,30,production,2026-06-01T00:00:00Z,2026-07-01T00:00:00Z",
                "research,h100,10,research,2026-06-01T00:00:00Z,2026-07-01T00:00:00Z",
            ],
            "cost_pools": ["2026-06,h100,120000,0.6,USD"],
            "settings": ["charging_model,cost_pool", "overhead_driver,none", "currency,USD"],
        },
    )
    # 50 GPUs x 720 h = 36,000 physical GPU-hours (seven nodes: six of 8 GPUs, one of 2).
    nodes = {f"n{i}": 8 for i in range(1, 7)} | {"n7": 2}
    research_end = june + dt.timedelta(hours=600)
    jobs = [
        Job("1", "prod", june, july, 8, "n1"),
        Job("2", "prod", june, july, 8, "n2"),
        Job("3", "prod", june, july, 8, "n3"),
        Job("4", "prod", june, july, 1, "n4"),
        Job("5", "research", june, research_end, 8, "n5"),
        Job("6", "research", june, research_end, 8, "n6"),
        Job("7", "research", june, research_end, 4, "n4"),
    ]
    closed = _ingest_and_close(home, policy, tmp_path, jobs, nodes, "2026-06")
    assert closed.exit_code == 0, closed.stdout + closed.stderr

    amounts = _amounts(home, "2026-06")
    assert amounts[("production", "fixed_capacity")] == Decimal("43200.00")
    assert amounts[("production", "variable_usage")] == Decimal("28800.00")
    assert amounts[("research", "fixed_capacity")] == Decimal("14400.00")
    assert amounts[("research", "variable_usage")] == Decimal("19200.00")
    assert _tenant_totals(home, "2026-06") == {
        "production": Decimal("72000.00"),
        "research": Decimal("33600.00"),
        "__platform__": Decimal("14400.00"),
    }
    rate = sql(
        home,
        "select unit_price from marts.fact_chargeback where period = '2026-06' "
        "and charge_component = 'variable_usage' and tenant_id = 'production'",
    )
    assert rate == [(Decimal("1.600000"),)]


def test_quota_burst_charges_guarantee_and_borrowed_hours(tmp_path: Path, home: Path) -> None:
    """Our own quota + burst example. Atlas reserves 2 GPUs for March (1,488 reserved GPU-hours
    at $1.50 committed = $2,232.00, used or not). Job A holds 2 GPUs for 100 h from
    10:20:30; job B holds 2 more for 50 h inside A: 4 concurrent > 2 reserved, so 100 GPU-hours
    are borrowed, shared pro rata (50 each), at $3.00 = $300.00. Boreal has no reservation:
    its 10 GPU-hours are all borrowed ($30.00)."""
    policy = write_policy(
        tmp_path / "policy",
        {
            "tenants": ["atlas,Team Atlas,research,cc-1", "boreal,Team Boreal,prod,cc-2"],
            "ownership": [
                "slurm_account,atlas,atlas,,2026-01-01T00:00:00Z,",
                "slurm_account,boreal,boreal,,2026-01-01T00:00:00Z,",
            ],
            "reservations": ["atlas,h100,2,research,2026-03-01T00:00:00Z,2026-04-01T00:00:00Z"],
            "rate_card": [
                "qb-1,2026-01-01T00:00:00Z,,h100,reserved_gpu_hour,1.50,USD",
                "qb-1,2026-01-01T00:00:00Z,,h100,borrowed_gpu_hour,3.00,USD",
            ],
            "settings": ["charging_model,quota_burst", "currency,USD"],
        },
    )
    a_start = dt.datetime(2026, 3, 10, 10, 20, 30)
    b_start = dt.datetime(2026, 3, 11, 8, 0, 0)
    jobs = [
        Job("10", "atlas", a_start, a_start + dt.timedelta(hours=100), 2, "node-a"),
        Job("11", "atlas", b_start, b_start + dt.timedelta(hours=50), 2, "node-a"),
        Job("12", "boreal", b_start, b_start + dt.timedelta(hours=10), 1, "node-a"),
    ]
    closed = _ingest_and_close(home, policy, tmp_path, jobs, {"node-a": 8}, "2026-03")
    assert closed.exit_code == 0, closed.stdout + closed.stderr

    lines = sql(
        home,
        "select tenant_id, charge_component, quantity, unit_price, amount "
        "from marts.fact_chargeback where period = '2026-03' order by tenant_id, charge_component",
    )
    assert lines == [
        ("atlas", "burst_usage", Decimal("100.000000"), Decimal("3.000000"), Decimal("300.00")),
        (
            "atlas",
            "guaranteed_capacity",
            Decimal("1488.000000"),
            Decimal("1.500000"),
            Decimal("2232.00"),
        ),
        ("boreal", "burst_usage", Decimal("10.000000"), Decimal("3.000000"), Decimal("30.00")),
    ]
    per_job = sql(
        home,
        "select workload_id, sum(allocated_gpu_hours), sum(guaranteed_gpu_hours), "
        "sum(borrowed_gpu_hours) from marts.fact_gpu_allocation group by all order by 1",
    )
    assert per_job == [
        ("slurm:test:10", Decimal("200.000000"), Decimal("150.000000"), Decimal("50.000000")),
        ("slurm:test:11", Decimal("100.000000"), Decimal("50.000000"), Decimal("50.000000")),
        ("slurm:test:12", Decimal("10.000000"), Decimal("0.000000"), Decimal("10.000000")),
    ]
    assert _tenant_totals(home, "2026-03") == {
        "atlas": Decimal("2532.00"),
        "boreal": Decimal("30.00"),
    }
