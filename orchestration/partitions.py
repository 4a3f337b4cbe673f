"""The two calendars: evidence lands per UTC day, the ledger closes per UTC month.

Both include the current day / month (`end_offset=1`): today's files can land today, and a
month can be closed as soon as the platform team decides (the schedule closes the previous
month on the 4th). Periods are `YYYY-MM`; a monthly partition key is `YYYY-MM-01`.
"""

from __future__ import annotations

from dagster import DailyPartitionsDefinition, MonthlyPartitionsDefinition

FIRST_DAY = "2020-01-01"
DAILY = DailyPartitionsDefinition(start_date=FIRST_DAY, end_offset=1)
MONTHLY = MonthlyPartitionsDefinition(start_date=FIRST_DAY, end_offset=1)


def period_of(partition_key: str) -> str:
    return partition_key[:7]


def partition_of(period: str) -> str:
    return f"{period}-01"
