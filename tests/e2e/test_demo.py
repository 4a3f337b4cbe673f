"""The demo: a month of a mixed fleet (Slurm, Kubernetes, vGPU, NVML, Prometheus, a model
gateway) generated, landed through every source's client, closed and shown (`run_demo`)."""

from __future__ import annotations

import csv
import io
import re
from decimal import Decimal
from pathlib import Path

from tests.conftest import run_cli, sql

SOURCES = ("inventory", "slurm", "kubernetes", "vgpu", "nvml", "prometheus", "requests")


def test_demo_closes_the_month_and_prints_the_showback(demo_home: tuple[Path, str]) -> None:
    home, stdout = demo_home
    assert "period 2026-10 closed and published as close-2026-10-v1-" in stdout
    assert "GPU Ledger showback 2026-10 (closed, USD)" in stdout
    close_id = re.search(r"closed and published as (\S+)", stdout).group(1)
    assert f"\nclose {close_id}: version 1, approver demo, closed at " in stdout
    # the tenants' charges and the central platform line totalled apart, then the total
    assert (
        "\ntenants: 125,201.64 USD; unattributed (suspense): 1,082.55 USD; "
        "central platform: 123,965.81 USD; total: 250,250.00 USD\n"
    ) in stdout
    assert "total charged" not in stdout
    for tenant in (
        "atlas",
        "boreal",
        "cirrus",
        "delta",
        "ember",
        "__unattributed__",
        "__platform__",
    ):
        assert f"\n{tenant} " in stdout
    assert sql(home, "select count(*) from ledger.closes") == [(1,)]
    checks = re.findall(r"^  (PASS|FAIL|NOT_APPLICABLE|INFO)\s+(\w+)", stdout, re.MULTILINE)
    assert {name for status, name in checks if status == "FAIL"} == set()
    assert {"unattributed_gpu_hours", "allocation_within_capacity"} <= {n for _, n in checks}


def test_demo_lands_every_source_without_quarantine(demo_home: tuple[Path, str]) -> None:
    home, stdout = demo_home
    landings = [line for line in stdout.splitlines() if ": read " in line]
    # inventory, 7 sacct, 3 kubectl (namespaces at the watch start, the watch, the listing),
    # vgpu, 4 nvml, 6 prometheus, the request log
    assert len(landings) == 23
    assert all(", quarantined 0 -> batch " in line for line in landings), landings
    assert "  quarantined " not in stdout
    batches = sql(
        home,
        "select source_name, count(*), sum(records_quarantined) "
        "from staging.stg_landing__batches group by all",
    )
    assert sorted(source for source, _, _ in batches) == sorted(SOURCES)
    assert sum(count for _, count, _ in batches) == 23
    assert {quarantined for _, _, quarantined in batches} == {0}
    assert sql(home, "select count(*) from staging.stg_landing__quarantine") == [(0,)]


def test_showback_has_kubernetes_and_vgpu_hours_of_named_tenants(
    demo_home: tuple[Path, str],
) -> None:
    home, _ = demo_home
    hours = {
        (tenant, source): hours
        for tenant, source, hours in sql(
            home,
            "select tenant_id, source_system, sum(allocated_gpu_hours) "
            "from marts.fact_gpu_allocation where period = '2026-10' group by all",
        )
    }
    print("\n2026-10 GPU-hours by tenant and source:")
    for (tenant, source), value in sorted(hours.items()):
        print(f"  {tenant:18s} {source:11s} {value:12.3f}")
    for tenant in ("atlas", "boreal", "cirrus", "delta"):
        assert hours[(tenant, "kubernetes")] > 10, tenant
    for tenant in ("cirrus", "ember"):
        assert hours[(tenant, "vgpu")] > 100, tenant
    # the sandbox namespace and the VM known only by its domain id have no owner
    assert 0 < hours[("__unattributed__", "kubernetes")] < 50
    assert 0 < hours[("__unattributed__", "vgpu")] < 50
    # the chat server holds 4 H100s of k8s-h100-01 all month, less its redeployments
    serving = sql(
        home,
        "select sum(allocated_gpu_hours) from marts.fact_gpu_allocation "
        "where period = '2026-10' and scope_key = 'ml-serving' and gpu_class = 'h100'",
    )[0][0]
    assert 4 * 744 * 0.99 <= serving <= 4 * 744
    classes = sql(
        home,
        "select distinct source_system, sharing_mode, gpu_class from marts.fact_gpu_allocation "
        "where period = '2026-10' and source_system != 'slurm' order by all",
    )
    assert classes == [
        ("kubernetes", "mig", "a100"),
        ("kubernetes", "process", "l4"),
        ("kubernetes", "timeslice", "l4"),
        ("kubernetes", "whole", "h100"),
        ("vgpu", "vgpu", "a100"),
    ]


def test_demo_pool_and_overhead_reconcile_to_the_cent(demo_home: tuple[Path, str]) -> None:
    home, _ = demo_home
    # demo policy: pools 187,500 (h100) + 55,000 (a100) + 2,000 (l4), overhead 6,000, credit 250
    assert sql(home, "select sum(amount) from marts.fact_chargeback where period = '2026-10'") == [
        (Decimal("250250.00"),)
    ]


def test_demo_ownership_change_splits_the_shared_account(demo_home: tuple[Path, str]) -> None:
    home, _ = demo_home
    owners = sql(
        home,
        "select tenant_id, min(segment_start_at), max(segment_end_at) "
        "from marts.fact_gpu_allocation where scope_key = 'nlp-shared' and period = '2026-10' "
        "group by all order by 2",
    )
    assert [o[0] for o in owners] == ["atlas", "cirrus"]
    assert str(owners[0][2]) <= "2026-10-15 12:00:00" <= str(owners[1][1])
    spanning = sql(
        home,
        "select workload_id from marts.fact_gpu_allocation where scope_key = 'nlp-shared' "
        "group by all having count(distinct tenant_id) = 2",
    )
    assert spanning, "a job running across the ownership change is split between the owners"


def test_demo_jobs_crossing_month_ends_are_charged_to_each_month(
    demo_home: tuple[Path, str],
) -> None:
    home, _ = demo_home
    crossing = sql(
        home,
        "select source_system, workload_id, list(distinct period order by period) as periods "
        "from marts.fact_gpu_allocation group by all having count(distinct period) > 1",
    )
    for source in ("slurm", "kubernetes", "vgpu"):
        spans = [set(periods) for system, _, periods in crossing if system == source]
        assert any({"2026-09", "2026-10"} <= span for span in spans), source
        assert any({"2026-10", "2026-11"} <= span for span in spans), source


def test_report_formats(demo_home: tuple[Path, str]) -> None:
    home, _ = demo_home
    csv_out = run_cli(home, None, "report", "--period", "2026-10", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(csv_out.stdout)))
    assert csv_out.stdout.startswith(
        "period,currency,tenant_id,tenant_name,department,cost_center,reserved_gpu_hours,"
    )
    atlas = next(row for row in rows if row["tenant_id"] == "atlas")
    assert (atlas["period"], atlas["currency"], atlas["tenant_name"]) == ("2026-10", "USD", "Atlas")
    assert (atlas["department"], atlas["cost_center"]) == ("ML research", "CC-4100")
    assert atlas["close_id"].startswith("close-2026-10-v1-") and atlas["status"] == "closed"
    lines = run_cli(home, None, "report", "--period", "2026-10", "--tenant", "boreal")
    assert "Charge lines of boreal" in lines.stdout and "\ntotal: 36,885.51 USD\n" in lines.stdout
    assert "guaranteed_capacity" in lines.stdout and "burst_usage" in lines.stdout
    boreal = run_cli(
        home, None, "report", "--period", "2026-10", "--tenant", "boreal", "--format", "csv"
    )
    assert {row["cost_center"] for row in csv.DictReader(io.StringIO(boreal.stdout))} == {"CC-4200"}
    html = run_cli(home, None, "report", "--period", "2026-10", "--format", "html")
    assert html.stdout.startswith("<!doctype html>") and '<td class="id">boreal</td>' in html.stdout
    assert (
        'data-metric="close_id" data-period="2026-10" data-value="close-2026-10-v1-' in html.stdout
    )
    assert 'data-party="platform" data-value="123965.81"' in html.stdout
    missing = run_cli(home, None, "report", "--period", "2031-01")
    assert missing.exit_code == 1 and "no showback for period 2031-01" in missing.stderr


def test_demo_never_wipes_a_home_it_did_not_create(tmp_path: Path) -> None:
    home = tmp_path / "precious"
    home.mkdir()
    (home / "warehouse.duckdb").write_text("not a demo")
    result = run_cli(home, None, "demo")
    assert result.exit_code == 2
    assert "not a demo's" in result.stderr
    assert (home / "warehouse.duckdb").read_text() == "not a demo"


def test_mixed_fleet_capacity_partitions_into_allocated_and_idle_classes(
    demo_home: tuple[Path, str],
) -> None:
    """Per GPU class and period: allocated (active, inactive, borrowed idle, no telemetry) plus
    every free class (reserve, fragmentation, unused guarantee, platform) plus unavailable
    equals physical capacity, on a fleet of whole GPUs, MIG, time-slicing and vGPU."""
    home, _ = demo_home
    rows = sql(
        home,
        "select capacity.period, capacity.gpu_class, capacity.physical_gpu_hours, "
        "sum(idle.gpu_hours) from intermediate.int_capacity_by_class as capacity "
        "inner join marts.fact_idle_capacity as idle on capacity.period = idle.period "
        "and capacity.gpu_class = idle.gpu_class where capacity.period = '2026-10' "
        "group by all order by 2",
    )
    assert [r[1] for r in rows] == ["a100", "h100", "l4"]
    for _, _, physical, classified in rows:
        # each published row is rounded to 1e-6 GPU-hour; thousands of rows may drift by 1e-3
        assert abs(float(physical) - float(classified)) < 1e-3
    modes = sql(
        home,
        "select sharing_mode, count(distinct tenant_id) from marts.fact_gpu_allocation "
        "where period = '2026-10' and tenant_id not like '\\_\\_%' escape '\\' group by all",
    )
    assert {mode for mode, tenants in modes if tenants > 0} == {
        "whole",
        "mig",
        "timeslice",
        "process",
        "vgpu",
    }


def test_time_sliced_gpus_with_process_evidence_are_measured_and_conserved(
    demo_home: tuple[Path, str],
) -> None:
    """The NVML sampler saw the time-sliced L4s' processes for two days: there the replicas
    hold their measured share of the GPU (medium), elsewhere 1 / replicas (modeled); on each
    mapped GPU the fractions held at any instant add up to at most 1."""
    home, _ = demo_home
    mix = dict(
        sql(
            home,
            "select confidence, sum(allocated_gpu_hours) from marts.fact_gpu_allocation "
            "where period = '2026-10' and gpu_class = 'l4' group by all",
        )
    )
    print(f"\nL4 allocated GPU-hours by confidence: {mix}")
    assert mix["medium"] > 10 and mix["modeled"] > 10
    assert set(
        sql(
            home,
            "select distinct sharing_mode, confidence from marts.fact_gpu_allocation "
            "where period = '2026-10' and gpu_class = 'l4' and tenant_id != '__unattributed__'",
        )
    ) == {("process", "medium"), ("timeslice", "modeled")}
    peaks = sql(
        home,
        "with events as (select gpu_uuid, allocation_start_at as event_at, "
        "gpu_equivalents as delta from intermediate.int_timeslice_process_shares union all "
        "select gpu_uuid, allocation_end_at, -gpu_equivalents "
        "from intermediate.int_timeslice_process_shares), "
        "levels as (select gpu_uuid, sum(sum(delta)) over "
        "(partition by gpu_uuid order by event_at) as level "
        "from events group by gpu_uuid, event_at) "
        "select gpu_uuid, max(level), min(level) from levels group by all",
    )
    assert len(peaks) >= 2
    for gpu, top, bottom in peaks:
        assert float(top) <= 1 + 1e-5 and float(bottom) >= -1e-9, gpu
    # the process-mapped rounds of a GPU shared by two pods split it between both
    shared_rounds = sql(
        home,
        "select count(*) from intermediate.int_timeslice_process_shares "
        "where sharing_mode = 'process' and capacity_fraction < 1",
    )[0][0]
    assert shared_rounds > 0


def test_mixed_fleet_charges_recover_the_pools_to_the_cent(demo_home: tuple[Path, str]) -> None:
    """Tenant charges + platform + suspense = the pool cost, per class; shared endpoint lines
    move cost between tenants and net to zero."""
    home, _ = demo_home
    per_class = sql(
        home,
        "select pools.gpu_class, pools.total_cost, sum(lines.amount) "
        "from staging.stg_policy__cost_pools as pools inner join marts.fact_chargeback as lines "
        "on pools.period = lines.period and pools.gpu_class = lines.gpu_class "
        "where pools.period = '2026-10' group by all order by 1",
    )
    assert per_class and all(pool == charged for _, pool, charged in per_class)
    endpoint = sql(
        home,
        "select sum(amount) from marts.fact_chargeback where period = '2026-10' "
        "and charge_component in ('shared_endpoint', 'shared_endpoint_hosting')",
    )
    assert endpoint == [(Decimal("0.00"),)]
