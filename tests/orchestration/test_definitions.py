"""The Definitions, pinned: asset keys, checks, jobs, schedules and the sensor."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from dagster import (
    AssetKey,
    DagsterInstance,
    Definitions,
    RunRequest,
    build_schedule_context,
    build_sensor_context,
)

from orchestration.definitions import build_definitions
from orchestration.resources import GpuLedgerResource
from orchestration.sources import source_tables
from tests.orchestration.conftest import drop_in_inbox

# the close's checks; fact_reconciliation reports more (each one is a check, see
# test_close_job: every check_name the model reports for the period was evaluated)
RECONCILIATION_CHECKS = {
    "allocation_within_capacity",
    "capacity_identity",
    "cost_recovery",
    "no_negative_intervals",
    "no_orphan_allocations",
    "no_success_without_workload",
    "ownership_intervals_disjoint",
    "quarantined_records",
    "rate_card_coverage",
    "reservations_within_capacity",
    "unattributed_cost",
    "unattributed_gpu_hours",
}
RECONCILIATION = AssetKey(["marts", "fact_reconciliation"])


@pytest.fixture(scope="module")
def defs(tmp_path_factory: pytest.TempPathFactory) -> Definitions:
    home = tmp_path_factory.mktemp("defs") / "home"
    return build_definitions(GpuLedgerResource(home=str(home)))


def _keys(defs: Definitions) -> set[str]:
    return {k.to_user_string() for k in defs.resolve_asset_graph().get_all_asset_keys()}


def test_every_landed_raw_table_is_an_extractor_asset_feeding_its_dbt_source(
    defs: Definitions,
) -> None:
    graph = defs.resolve_asset_graph()
    tables = source_tables()
    assert {"slurm", "inventory"} <= set(tables)
    assert set(tables["slurm"]) == {"slurm_jobs", "slurm_steps"}
    for source, raw in tables.items():
        for table in raw:
            node = graph.get(AssetKey([source, table]))
            assert node.is_materializable and node.group_name == "raw"
            assert node.partitions_def is not None  # daily
            assert AssetKey([source, table]) in {c.asset_key for c in node.check_keys} and {
                c.name for c in node.check_keys
            } == {"raw_batch_expectations"}
    # the staging model reads the table the extractor lands: one graph
    assert (
        AssetKey(["slurm", "slurm_jobs"])
        in graph.get(AssetKey(["staging", "stg_slurm__jobs"])).parent_keys
    )


def test_pinned_asset_keys(defs: Definitions) -> None:
    keys = _keys(defs)
    assert {
        "slurm/slurm_jobs",
        "slurm/slurm_steps",
        "inventory/inventory_devices",
        "staging/stg_slurm__jobs",
        "staging/stg_ledger__closes",
        "staging/stg_ledger__reopens",
        "staging/stg_ledger__close_batches",
        "staging/stg_ledger__batch_validations",
        "intermediate/int_charge_lines",
        "intermediate/int_closed_periods",
        "intermediate/int_correction_lines",
        "marts/fact_chargeback",
        "marts/fact_showback",
        "marts/fact_reconciliation",
        "published_period",
        "serving/marts",
    } <= keys
    graph = defs.resolve_asset_graph()
    published = graph.get(AssetKey(["published_period"]))
    assert published.partitions_def.get_partition_key_for_timestamp(
        dt.datetime(2026, 10, 15, tzinfo=dt.UTC).timestamp()
    ) == ("2026-10-01")
    assert {
        AssetKey(["marts", "fact_chargeback"]),
        AssetKey(["marts", "fact_showback"]),
        RECONCILIATION,
    } <= published.parent_keys
    # the served copy readers use: downstream of every mart and of the ledger, published by
    # the build and close steps (never a step of its own)
    served = graph.get(AssetKey(["serving", "marts"]))
    assert not served.is_materializable
    assert {AssetKey(["published_period"]), *published.parent_keys} <= served.parent_keys
    assert all(k.path[0] == "marts" for k in served.parent_keys - {AssetKey(["published_period"])})


def test_pinned_checks(defs: Definitions) -> None:
    graph = defs.resolve_asset_graph()
    on_reconciliation = {k.name: k for k in graph.asset_check_keys if k.asset_key == RECONCILIATION}
    assert set(on_reconciliation) >= RECONCILIATION_CHECKS
    for name in RECONCILIATION_CHECKS:
        assert graph.get_check_spec(on_reconciliation[name]).blocking, name
    # dbt data tests are asset checks too
    chargeback = {
        k.name
        for k in graph.asset_check_keys
        if k.asset_key == AssetKey(["marts", "fact_chargeback"])
    }
    assert "unique_fact_chargeback_charge_line_id" in chargeback


def test_pinned_jobs(defs: Definitions) -> None:
    assert {j.name for j in defs.jobs} == {
        "land_inbox",
        "provisional_build",
        "monthly_close",
        "reopen_period",
    }
    land = defs.resolve_job_def("land_inbox")
    build = defs.resolve_job_def("provisional_build")
    close = defs.resolve_job_def("monthly_close")
    reopen = defs.resolve_job_def("reopen_period")
    assert str(land.partitions_def).startswith("Daily")
    assert build.partitions_def is None
    assert str(close.partitions_def).startswith("Monthly")
    assert reopen.partitions_def == close.partitions_def
    assert not reopen.asset_layer.executable_asset_keys

    def checks_of(job: object) -> set[str]:
        return {k.name for k in job.asset_layer.asset_graph.asset_check_keys}

    close_keys = {k.to_user_string() for k in close.asset_layer.executable_asset_keys}
    build_keys = {k.to_user_string() for k in build.asset_layer.executable_asset_keys}
    assert "published_period" in close_keys and "published_period" not in build_keys
    assert "marts/fact_reconciliation" in build_keys
    assert checks_of(close) >= RECONCILIATION_CHECKS
    assert not RECONCILIATION_CHECKS & checks_of(build)
    assert "unique_fact_chargeback_charge_line_id" in checks_of(build)
    land_keys = {k.to_user_string() for k in land.asset_layer.executable_asset_keys}
    assert land_keys == {f"{s}/{t}" for s, raw in source_tables().items() for t in raw}


def test_pinned_schedules(defs: Definitions) -> None:
    assert {s.name for s in defs.schedules} == {"daily_provisional_build", "monthly_close_schedule"}
    daily = defs.resolve_schedule_def("daily_provisional_build")
    assert (daily.cron_schedule, daily.job_name) == ("0 5 * * *", "provisional_build")
    monthly = defs.resolve_schedule_def("monthly_close_schedule")
    assert (monthly.cron_schedule, monthly.job_name) == ("0 6 4 * *", "monthly_close")
    repository = defs.get_repository_def()
    tick = monthly.evaluate_tick(
        build_schedule_context(
            scheduled_execution_time=dt.datetime(2026, 12, 4, 6, tzinfo=dt.UTC),
            repository_def=repository,
        )
    )
    (request,) = tick.run_requests
    assert request.partition_key == "2026-11-01"
    assert request.run_config["ops"]["published_period"]["config"]["approver"] == "schedule"
    daily_tick = daily.evaluate_tick(
        build_schedule_context(
            scheduled_execution_time=dt.datetime(2026, 12, 4, 5, tzinfo=dt.UTC),
            repository_def=repository,
        )
    )
    assert daily_tick.run_requests[0].tags["gpuledger/open_period"] == "2026-12"


def test_inbox_sensor_requests_one_run_per_source_and_day(tmp_path: Path) -> None:
    home = tmp_path / "home"
    defs = build_definitions(GpuLedgerResource(home=str(home)))
    sensor = defs.resolve_sensor_def("inbox_sensor")
    assert sensor.job_name == "land_inbox"
    with DagsterInstance.ephemeral() as instance:
        context = build_sensor_context(
            instance=instance,
            resources={"gpuledger": defs.resources["gpuledger"]},
            repository_def=defs.get_repository_def(),
        )
        empty = sensor.evaluate_tick(context)
        assert empty.run_requests == [] and "no new files" in empty.skip_message

        day = dt.datetime(2026, 4, 2, 9)
        drop_in_inbox(home, "slurm", "a.txt", "x\n", day)
        drop_in_inbox(home, "slurm", "b.txt", "y\n", day)
        drop_in_inbox(home, "inventory", "cmdb.csv", "z\n", day + dt.timedelta(days=1))
        drop_in_inbox(home, "slurm", "c.txt.part", "still copying\n", day)
        (home / "inbox" / "unknown").mkdir()
        drop_in_inbox(home, "unknown", "x.txt", "?\n", day)
        requests = sensor.evaluate_tick(context).run_requests
    assert all(isinstance(r, RunRequest) for r in requests)
    assert sorted((r.partition_key, r.tags["gpuledger/source"]) for r in requests) == [
        ("2026-04-02", "slurm"),
        ("2026-04-03", "inventory"),
    ]
    slurm = next(r for r in requests if r.tags["gpuledger/source"] == "slurm")
    assert set(slurm.asset_selection) == {
        AssetKey(["slurm", "slurm_jobs"]),
        AssetKey(["slurm", "slurm_steps"]),
    }
    assert slurm.run_key.startswith("slurm:2026-04-02:")
