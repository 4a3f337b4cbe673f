"""Jobs, schedules and the inbox sensor.

- land_inbox (daily partitions): the extractor assets; the inbox sensor requests one run per
  source and day of the files waiting in `<home>/inbox/<source>/`.
- provisional_build (unpartitioned): the whole dbt project with its data tests; every open
  period is provisional showback. Scheduled daily at 05:00 UTC; `gpuledger build` runs it.
- monthly_close (monthly partitions): the build, the blocking reconciliation checks of the
  period, and published_period. Scheduled on the 4th at 06:00 UTC for the previous month
  (stopped by default: the platform team turns it on, or launches the close from the UI);
  `gpuledger close --period` runs it.
"""

import datetime as dt
import hashlib
from collections.abc import Iterator

from dagster import (
    AssetChecksDefinition,
    AssetKey,
    AssetsDefinition,
    AssetSelection,
    DefaultScheduleStatus,
    DefaultSensorStatus,
    RunRequest,
    ScheduleEvaluationContext,
    SensorEvaluationContext,
    SkipReason,
    define_asset_job,
    schedule,
    sensor,
)
from dagster._core.definitions.unresolved_asset_job_definition import (
    UnresolvedAssetJobDefinition,
)

from orchestration.inbox import inbox_dir, pending_files
from orchestration.ledger_assets import published_period
from orchestration.partitions import DAILY, partition_of
from orchestration.resources import GpuLedgerResource
from orchestration.sources import source_tables

LAND_INBOX = "land_inbox"
PROVISIONAL_BUILD = "provisional_build"
MONTHLY_CLOSE = "monthly_close"


def build_jobs(
    warehouse: AssetsDefinition, reconciliation_checks: AssetChecksDefinition
) -> list[UnresolvedAssetJobDefinition]:
    return [
        define_asset_job(
            LAND_INBOX,
            selection=AssetSelection.groups("raw"),
            description="Land and validate the evidence files dropped in <home>/inbox/<source>/.",
        ),
        define_asset_job(
            PROVISIONAL_BUILD,
            selection=AssetSelection.assets(warehouse)
            - AssetSelection.checks(reconciliation_checks),
            description="Build the warehouse: every period, open ones provisional.",
        ),
        define_asset_job(
            MONTHLY_CLOSE,
            selection=AssetSelection.assets(warehouse, published_period),
            description="Build, run the blocking reconciliation checks of the month, publish it.",
        ),
    ]


@schedule(
    job_name=PROVISIONAL_BUILD,
    cron_schedule="0 5 * * *",
    execution_timezone="UTC",
    default_status=DefaultScheduleStatus.RUNNING,
)
def daily_provisional_build(context: ScheduleEvaluationContext) -> RunRequest:
    open_period = context.scheduled_execution_time.strftime("%Y-%m")
    return RunRequest(tags={"gpuledger/open_period": open_period})


@schedule(
    job_name=MONTHLY_CLOSE,
    cron_schedule="0 6 4 * *",
    execution_timezone="UTC",
    default_status=DefaultScheduleStatus.STOPPED,
)
def monthly_close_schedule(context: ScheduleEvaluationContext) -> RunRequest:
    first_of_month = context.scheduled_execution_time.date().replace(day=1)
    period = (first_of_month - dt.timedelta(days=1)).strftime("%Y-%m")
    return RunRequest(
        run_key=f"close-{period}",
        partition_key=partition_of(period),
        run_config={"ops": {"published_period": {"config": {"approver": "schedule"}}}},
    )


@sensor(
    job_name=LAND_INBOX,
    minimum_interval_seconds=30,
    default_status=DefaultSensorStatus.RUNNING,
)
def inbox_sensor(
    context: SensorEvaluationContext, gpuledger: GpuLedgerResource
) -> Iterator[RunRequest | SkipReason]:
    home = gpuledger.home_path()
    tables = source_tables()
    groups: dict[tuple[str, str], list[str]] = {}
    for item in pending_files(home, frozenset(tables)):
        if not DAILY.has_partition_key(item.day):
            context.log.warning(f"{item.path}: modified {item.day}, outside the daily partitions")
            continue
        groups.setdefault((item.source, item.day), []).append(
            f"{item.path.name}:{item.size}:{item.mtime_ns}"
        )
    if not groups:
        yield SkipReason(f"no new files in {inbox_dir(home)}/<source>/")
        return
    for (source, day), files in sorted(groups.items()):
        digest = hashlib.sha256("\n".join(sorted(files)).encode()).hexdigest()[:16]
        yield RunRequest(
            run_key=f"{source}:{day}:{digest}",
            partition_key=day,
            asset_selection=[AssetKey([source, table]) for table in tables[source]],
            tags={"gpuledger/source": source},
        )
