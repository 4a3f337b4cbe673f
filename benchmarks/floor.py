"""The floor a close is measured against: one DuckDB pass over the landed Prometheus Parquet
(the points joined to their series, as staging reads them) doing the hourly roll-up of the
DCGM telemetry (per GPU, metric and hour: mean, max and samples) into a table, the least any
warehouse does with these points.

    python -m benchmarks.floor HOME
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import duckdb

ROLLUP = """
create table gpu_hourly as
select
    gpu_uuid,
    metric,
    date_trunc('hour', sampled_at) as hour_start_at,
    avg(value) as mean_value,
    max(value) as max_value,
    count(*) as samples
from read_parquet(?) as points
inner join read_parquet(?) as series
    on points.batch_id = series.batch_id and points.series_key = series.series_key
where series.exporter = 'dcgm'
group by all
"""


def rollup(home: Path) -> int:
    """Roll the landed samples up in a scratch database; returns the hourly rows."""
    raw = home / "raw"
    points = str(raw / "prometheus_points" / "*.parquet")
    series = str(raw / "prometheus_series" / "*.parquet")
    with tempfile.TemporaryDirectory(prefix="gpuledger-floor-") as scratch:
        connection = duckdb.connect(str(Path(scratch) / "floor.duckdb"))
        connection.execute(ROLLUP, [points, series])
        (rows,) = connection.execute("select count(*) from gpu_hourly").fetchone()
        connection.close()
    return rows


if __name__ == "__main__":
    print(f"hourly rows: {rollup(Path(sys.argv[1])):,}")
