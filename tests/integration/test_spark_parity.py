"""The same dbt project on Spark (README "The same models on Spark").

The demo month is generated, landed and closed on DuckDB (the session's demo home); then
`dbt build --target spark` runs every model, contract, data test and unit test in a local
in-process Spark session (pyspark, `local[2]`) over the same landed Parquet batches and policy
snapshot. The Spark marts (Parquet tables in the Spark warehouse folder) must equal DuckDB's:
every charge to the cent, every count exactly, GPU-hours to 1e-5 (each published row is
rounded to 1e-6 from doubles, so a sum of rows may differ in its last digit).

Java comes from scripts/spark/install.sh (Debian openjdk-17-jre-headless, as root).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from gpuledger.core import incremental, period_scope
from gpuledger.core.warehouse import dbt_environment

REPO = Path(__file__).resolve().parents[2]
# the days the incremental run rebuilds: the demo's DCGM days 2026-10-12 and 10-13, and before
# them days no landed evidence reaches (the hourly roll-up's NVML rows begin on 09-30): rows
# planted on PLANTED_DAY must be gone after the run
REBUILT_DAYS = "2026-09-29/2026-10-14"
PLANTED_DAY = "2026-09-29"
DBT = Path(sys.executable).with_name("dbt")

# mart, grouping keys, measures compared exactly, measures compared to 1e-5
MARTS = (
    (
        "fact_chargeback",
        ("period", "tenant_id", "charge_component", "gpu_class"),
        ("amount", "quantity"),
        (),
    ),
    (
        "fact_showback",
        ("period", "tenant_id"),
        (
            "total_charge",
            "successful_jobs",
            "unsuccessful_jobs",
            "requests",
            "input_tokens",
            "output_tokens",
        ),
        (
            "reserved_gpu_hours",
            "allocated_gpu_hours",
            "guaranteed_gpu_hours",
            "borrowed_gpu_hours",
            "active_equivalent_gpu_hours",
            "idle_allocated_gpu_hours",
            "medium_confidence_gpu_hours",
            "process_gpu_hours",
        ),
    ),
    ("fact_reconciliation", ("period", "check_name", "status"), ("observed_value",), ()),
    (
        "fact_idle_capacity",
        ("period", "gpu_class", "idle_class", "default_payer", "tenant_id"),
        (),
        ("gpu_hours",),
    ),
    (
        "fact_gpu_allocation",
        ("period", "tenant_id", "sharing_mode", "confidence"),
        (),
        ("allocated_gpu_hours", "borrowed_gpu_hours"),
    ),
    (
        "fact_productive_work",
        ("period", "tenant_id", "unit_kind", "endpoint_id"),
        ("successful_units", "unsuccessful_units"),
        (),
    ),
    (
        "fact_failed_work",
        ("period", "tenant_id", "failure_class", "payer", "is_avoidable_rework"),
        ("workloads", "ended_workloads"),
        ("gpu_hours", "avoidable_rework_gpu_hours"),
    ),
)


@pytest.fixture(scope="module")
def java() -> None:
    subprocess.run(
        ["bash", str(REPO / "scripts" / "spark" / "install.sh")], check=True, timeout=900
    )


def _spark_dbt(home: Path, *args: str, window: str = "", frozen: tuple[str, ...] = ()) -> str:
    """dbt against the Spark target of `home`; its output. `window`: the days the
    incremental models rebuild (GPULEDGER_REBUILD_WINDOW), all when empty; `frozen`: the
    periods the models built by period keep (GPULEDGER_FROZEN_PERIODS)."""
    env = {**os.environ, **dbt_environment(home), "SPARK_LOCAL_IP": "127.0.0.1"}
    env[incremental.WINDOW_VARIABLE] = window
    env.update(period_scope.environment(frozen))
    result = subprocess.run(
        [
            str(DBT),
            *args,
            "--target",
            "spark",
            "--project-dir",
            str(REPO),
            "--profiles-dir",
            str(REPO),
            "--target-path",
            str(home / "spark" / "target"),
            "--log-path",
            str(home / "spark" / "logs"),
        ],
        cwd=home / "spark",  # Spark's derby.log lands here
        env=env,
        capture_output=True,
        text=True,
        timeout=2400,
        check=False,
    )
    return result.stdout + result.stderr


@pytest.fixture(scope="module")
def built(demo_home: tuple[Path, str], java: None) -> tuple[Path, str]:
    """The session's demo home (tests/conftest.py), built on Spark in its `spark/` folder;
    the DuckDB warehouse beside it is only read."""
    home, _ = demo_home
    (home / "spark").mkdir()
    return home, _spark_dbt(home, "build")


@pytest.fixture(scope="module")
def rebuilt(built: tuple[Path, str]) -> tuple[Path, str]:
    """The Spark warehouse after an incremental run of the incremental models that rebuilds
    the demo's DCGM days 2026-10-12 and 10-13 and the days before them from PLANTED_DAY,
    which no landed sample covers but where five rows of each model were planted first (as a
    day keeps its rows after its batch was taken out): the run must leave that day empty, as
    on DuckDB."""
    home, _ = built
    for schema, name, _ in incremental.INCREMENTAL_MODELS:
        assert _day_rows(home, schema, name).get(PLANTED_DAY) is None
    _plant_rows(home, 5)
    for schema, name, _ in incremental.INCREMENTAL_MODELS:
        assert _day_rows(home, schema, name)[PLANTED_DAY] == 5
    selected = [name for _, name, _ in incremental.INCREMENTAL_MODELS]
    return home, _spark_dbt(home, "run", "--select", *selected, window=REBUILT_DAYS)


def _plant_rows(home: Path, count: int) -> None:
    """In each Spark incremental table, `count` rows of a day after the window's first copied
    onto PLANTED_DAY (their day column only changed), through Spark: one `dbt run-operation
    run_statements` (a Spark session of its own) for the three tables."""
    con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    first = REBUILT_DAYS.split("/")[0]
    statements = []
    for schema, model, _ in incremental.INCREMENTAL_MODELS:
        day = INCREMENTAL_MEASURES[model][0]
        columns = [row[0] for row in con.sql(f"describe {schema}.{model}").fetchall()]
        selected = ", ".join(
            f"date'{PLANTED_DAY}' as {day}" if column == day else column for column in columns
        )
        statements.append(
            f"insert into table {schema}.{model} by name select {selected} "
            f"from {schema}.{model} where {day} > date'{first}' limit {count}"
        )
    arguments = json.dumps({"sql": ";\n".join(statements)})
    output = _spark_dbt(home, "run-operation", "run_statements", "--args", arguments)
    assert "Encountered an error" not in output, output[-3000:]


def _day_rows(home: Path, schema: str, model: str) -> dict[str, int]:
    """A Spark incremental table's rows per day (`YYYY-MM-DD`), from its files."""
    day = INCREMENTAL_MEASURES[model][0]
    files = home / "spark" / "warehouse" / f"{schema}.db" / model
    source = f"read_parquet('{files}/**/*.parquet', hive_partitioning = true)"
    query = f"select cast(cast({day} as date) as varchar), count(*) from {source} group by 1"
    return dict(duckdb.sql(query).fetchall())


def test_every_model_test_and_contract_passes_on_spark(built: tuple[Path, str]) -> None:
    _, output = built
    done = re.search(r"Done\. PASS=(\d+) WARN=(\d+) ERROR=(\d+) SKIP=(\d+)", output)
    assert done, output[-5000:]
    passed, warned, errors, skipped = map(int, done.groups())
    print(f"\ndbt build --target spark: PASS={passed} WARN={warned} ERROR={errors} SKIP={skipped}")
    assert (errors, skipped) == (0, 0), output[-5000:]
    assert passed > 400


@pytest.mark.parametrize(("mart", "keys", "exact", "close"), MARTS, ids=[m[0] for m in MARTS])
def test_spark_marts_equal_duckdb_marts(
    built: tuple[Path, str], mart: str, keys: tuple[str, ...], exact: tuple, close: tuple
) -> None:
    home, _ = built
    _assert_equal_marts(home, mart, keys, exact, close)


def _spark_parquet(folder: Path) -> str:
    """A DuckDB source of a Spark table's files, a partitioned one's partition column (the
    period) read from the folder names as a string."""
    assert list(folder.rglob("*.parquet")), f"Spark wrote no {folder.name}"
    return (
        f"read_parquet('{folder}/**/*.parquet', union_by_name = true, "
        "hive_partitioning = true, hive_types_autocast = false)"
    )


def _assert_equal_marts(
    home: Path, mart: str, keys: tuple[str, ...], exact: tuple, close: tuple
) -> None:
    spark_files = home / "spark" / "warehouse" / "marts.db" / mart
    con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    measures = ", ".join(f"sum({m}) as {m}" for m in (*exact, *close))
    grouped = "select {keys}, count(*) as row_count{sep}{measures} from {source} group by all"
    query = grouped.format(
        keys=", ".join(keys), sep=", " if measures else "", measures=measures, source="{source}"
    )
    duck = {
        r[: len(keys)]: r[len(keys) :]
        for r in con.sql(query.format(source=f"marts.{mart}")).fetchall()
    }
    spark = {
        r[: len(keys)]: r[len(keys) :]
        for r in con.sql(query.format(source=_spark_parquet(spark_files))).fetchall()
    }
    assert duck, f"DuckDB built no {mart}"
    assert sorted(spark, key=repr) == sorted(duck, key=repr), f"{mart}: other groups on Spark"
    for group, values in duck.items():
        other = spark[group]
        n_exact = 1 + len(exact)
        assert other[:n_exact] == values[:n_exact], (mart, group, values, other)
        for name, a, b in zip(close, values[n_exact:], other[n_exact:], strict=True):
            assert (a is None) == (b is None), (mart, group, name, a, b)
            if a is not None:
                assert abs(float(a) - float(b)) < 1e-5, (mart, group, name, a, b)


# incremental table, its day column, measures summed per day
INCREMENTAL_MEASURES = {
    "stg_prometheus__gpu_activity": ("sample_day", ("active_ratio", "power_watts")),
    "int_device_activity_hourly": ("hour_day", ("covered_seconds", "active_seconds")),
    "int_dcgm_device_days": ("sample_day", ("row_count",)),
    "int_node_telemetry_hourly": ("hour_day", ("covered_seconds", "reporting_device_count")),
}


@pytest.mark.parametrize("model", sorted(INCREMENTAL_MEASURES))
def test_incremental_models_rebuild_days_on_spark_as_on_duckdb(
    rebuilt: tuple[Path, str], model: str
) -> None:
    """After the incremental run (two days' partitions overwritten) the Spark table equals
    DuckDB's, day by day: rows and sums."""
    home, output = rebuilt
    done = re.search(r"Done\. PASS=(\d+) WARN=(\d+) ERROR=(\d+) SKIP=(\d+)", output)
    assert done and done.groups()[2:] == ("0", "0"), output[-5000:]
    schema = {name: s for s, name, _ in incremental.INCREMENTAL_MODELS}[model]
    day, measures = INCREMENTAL_MEASURES[model]
    files = home / "spark" / "warehouse" / f"{schema}.db" / model
    sums = ", ".join(f"round(sum({m}), 6)" for m in measures)
    query = f"select cast({day} as date), count(*), {sums} from {{source}} group by 1 order by 1"
    con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    duck = con.sql(query.format(source=f"{schema}.{model}")).fetchall()
    spark_source = f"read_parquet('{files}/**/*.parquet', hive_partitioning = true)"
    spark = con.sql(query.format(source=spark_source)).fetchall()
    assert str(spark[0][0]) != PLANTED_DAY, f"{model}: the planted day kept {spark[0][1]} rows"
    assert duck and spark == duck
    print(f"\n{model}: {len(duck)} days, {sum(r[1] for r in duck):,} rows on both engines")


def _period_files(folder: Path) -> dict[str, set[tuple[str, int]]]:
    """A table partitioned by period: its files (name, modification time) per period."""
    return {
        part.name.removeprefix("period="): {
            (f.name, f.stat().st_mtime_ns) for f in part.glob("*.parquet")
        }
        for part in folder.glob("period=*")
    }


@pytest.fixture(scope="module")
def period_run(rebuilt: tuple[Path, str]) -> dict:
    """The models built by period run again on Spark with the periods the DuckDB build of
    this home keeps (period_scope.frozen: the demo's closed October): the files of every
    period before and after, and dbt's output."""
    home, _ = rebuilt
    frozen = period_scope.frozen(home, incremental.manifested_batches(home))
    folders = {
        name: home / "spark" / "warehouse" / f"{schema}.db" / name
        for schema, name in period_scope.PERIOD_MODELS
    }
    before = {name: _period_files(folder) for name, folder in folders.items()}
    names = [name for _, name in period_scope.PERIOD_MODELS]
    output = _spark_dbt(home, "run", "--select", *names, frozen=frozen)
    after = {name: _period_files(folder) for name, folder in folders.items()}
    return {"home": home, "frozen": frozen, "before": before, "after": after, "output": output}


def test_spark_keeps_the_frozen_periods_files_and_rewrites_the_others(period_run: dict) -> None:
    """On Spark a model built by period is partitioned by it: a run with frozen periods
    leaves their partitions' files as they are and writes the other periods' anew."""
    output = period_run["output"]
    done = re.search(r"Done\. PASS=(\d+) WARN=(\d+) ERROR=(\d+) SKIP=(\d+)", output)
    assert done and done.groups()[2:] == ("0", "0"), output[-5000:]
    results = json.loads((period_run["home"] / "spark" / "target" / "run_results.json").read_text())
    ran = {r["unique_id"].split(".")[-1]: r["status"] for r in results["results"]}
    assert {name: ran.get(name) for _, name in period_scope.PERIOD_MODELS} == {
        name: "success" for _, name in period_scope.PERIOD_MODELS
    }
    frozen, before, after = period_run["frozen"], period_run["before"], period_run["after"]
    assert frozen == ("2026-10",)
    kept = recomputed = 0
    for name, periods in before.items():
        assert set(periods) == _duckdb_periods(period_run["home"], name), name
        assert set(after[name]) == set(periods), name
        for period, files in periods.items():
            if period in frozen:
                assert after[name][period] == files, f"{name} {period}: frozen, rewritten"
                kept += 1
            else:
                assert files and not files & after[name][period], f"{name} {period}: kept"
                recomputed += 1
    print(f"\nfrozen {frozen}: {kept} partition(s) kept, {recomputed} rewritten")
    assert kept and recomputed


def _duckdb_periods(home: Path, model: str) -> set[str]:
    schema = dict((name, schema) for schema, name in period_scope.PERIOD_MODELS)[model]
    con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    return {p for (p,) in con.sql(f"select distinct period from {schema}.{model}").fetchall()}


@pytest.mark.parametrize(("schema", "model"), period_scope.PERIOD_MODELS, ids=lambda v: v)
def test_spark_tables_built_by_period_equal_duckdb_after_keeping_a_period(
    period_run: dict, schema: str, model: str
) -> None:
    """After the run that kept October: rows per period as on DuckDB, and the two marts
    built by period equal DuckDB's as in test_spark_marts_equal_duckdb_marts."""
    home = period_run["home"]
    folder = home / "spark" / "warehouse" / f"{schema}.db" / model
    query = "select period, count(*) from {source} group by 1 order by 1"
    con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    duck = con.sql(query.format(source=f"{schema}.{model}")).fetchall()
    if not duck:  # the demo has none (a table of findings)
        assert not list(folder.rglob("*.parquet")), f"{model}: rows on Spark only"
        return
    spark = con.sql(query.format(source=_spark_parquet(folder))).fetchall()
    assert spark == duck
    for mart, keys, exact, close in MARTS:
        if mart == model:
            _assert_equal_marts(home, mart, keys, exact, close)
