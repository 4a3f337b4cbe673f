"""`gpuledger explain` over the demo month: every charge line is explained by evidence that
adds up to its quantity and amount exactly, and the command prints it with its origins."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from tests.conftest import run_cli, sql


def _line(home: Path, tenant: str, component: str) -> tuple[str, Decimal, str, Decimal]:
    rows = sql(
        home,
        "select charge_line_id, quantity, unit, amount from marts.fact_chargeback "
        "where period = '2026-10' and tenant_id = ? and charge_component = ?",
        [tenant, component],
    )
    assert len(rows) == 1, rows
    return rows[0]


def test_every_line_of_the_demo_month_adds_up_to_the_cent(demo_home: tuple[Path, str]) -> None:
    home, _ = demo_home
    lines = sql(
        home,
        "select charge_line_id, charge_component, quantity, amount from marts.fact_chargeback "
        "where period = '2026-10'",
    )
    evidence = {
        line_id: (count, quantity, amount, reproduced)
        for line_id, count, quantity, amount, reproduced in sql(
            home,
            "select charge_line_id, count(*), sum(quantity), sum(amount), "
            "bool_and(is_line_reproduced) from marts.fact_charge_line_evidence "
            "where period = '2026-10' group by all",
        )
    }
    assert len(lines) == 30
    assert {component for _, component, _, _ in lines} == {
        "guaranteed_capacity",
        "burst_usage",
        "shared_endpoint",
        "shared_endpoint_hosting",
        "shared_overhead",
        "credit",
        "unrecovered_pool_cost",
    }
    for line_id, component, quantity, amount in lines:
        count, evidence_quantity, evidence_amount, reproduced = evidence[line_id]
        assert count > 0 and reproduced, (line_id, component)
        assert (evidence_quantity, evidence_amount) == (quantity, amount), (line_id, component)
    # every segment a burst line prices names the batch, file and line it was landed from
    unlocated = sql(
        home,
        "select count(*) from marts.fact_charge_line_evidence where period = '2026-10' "
        "and evidence_kind = 'segment' and (source_batch_id is null or source_file is null "
        "or (source_line is null and source_system != 'vgpu'))",
    )
    assert unlocated == [(0,)]


def test_explain_prints_a_reserved_a_borrowed_and_a_shared_endpoint_line(
    demo_home: tuple[Path, str],
) -> None:
    home, _ = demo_home
    origins = {
        "guaranteed_capacity": "reservations.csv: tenant_id=atlas, gpu_class=h100",
        "burst_usage": "sacct_2026-W4",
        "shared_endpoint": "endpoint_weights.csv: weight_version=chat-2026.2",
    }
    for component, origin in origins.items():
        line_id, quantity, unit, amount = _line(home, "atlas", component)
        result = run_cli(
            home, None, "explain", "--period", "2026-10", "--tenant", "atlas", "--line", line_id
        )
        assert result.exit_code == 0, result.stderr
        printed = result.stdout.splitlines()
        print(f"\n{component}: {printed[-1]}")
        assert printed[0] == f"Charge line {line_id}"
        assert f"  component    {component} (class h100)" in printed
        assert origin in result.stdout
        assert printed[-1] == (
            f"evidence adds up to the line: quantity {quantity:,f} {unit} and "
            f"amount {amount:,f} USD, exactly"
        )


def test_explain_lists_a_tenants_lines_and_refuses_what_it_does_not_know(
    demo_home: tuple[Path, str],
) -> None:
    home, _ = demo_home
    listed = run_cli(home, None, "explain", "--period", "2026-10", "--tenant", "boreal")
    assert listed.exit_code == 0
    assert listed.stdout.startswith("Charge lines of boreal in 2026-10")
    assert "shared_endpoint_hosting" in listed.stdout and "guaranteed_capacity" in listed.stdout
    for args, message in (
        (("--period", "2031-01", "--tenant", "atlas"), "no charge lines for period 2031-01"),
        (("--period", "2026-10", "--tenant", "nobody"), "tenant nobody has no charge lines"),
        (
            ("--period", "2026-10", "--tenant", "atlas", "--line", "nope"),
            "no charge line nope of atlas in 2026-10",
        ),
    ):
        refused = run_cli(home, None, "explain", *args)
        assert refused.exit_code == 1
        assert message in refused.stderr and len(refused.stderr.splitlines()) == 1
