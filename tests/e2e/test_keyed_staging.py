"""Models kept per record key (macros/keyed.sql, macros/materializations/by_key.sql).

sacct text, a gateway log and kubectl's pods land through `gpuledger ingest` in two rounds.
The second round re-reports jobs and requests of the first: one corrected by a later
extraction (its new version must win), one re-exported from an older extraction (the first
round's version must stay), with new ones beside them, and observes some of the pods
again. The models kept per key, built whole after the first round and then per key
(GPULEDGER_KEYED_BATCHES naming the second round's batches), must hold the same rows as those
built whole from both rounds, having recomputed only the keys the second round names (and
downstream only the rows whose staging rows changed). A pod that a new complete list ends
without naming it (only the live client records lists as complete) is
tests/integration/test_kubernetes_live.py's.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
import shutil
from pathlib import Path

import duckdb
import pytest

from benchmarks.fleet import Node, Run
from benchmarks.formats.kubernetes import pod_object
from benchmarks.formats.requests import Request, write_requests_day
from benchmarks.formats.slurm import HEADER, job_lines
from benchmarks.policy import write_policy
from gpuledger.core import incremental
from gpuledger.core.warehouse import prepare, run_dbt
from orchestration.project import prepare_manifest
from orchestration.warehouse_assets import INCREMENTAL_KEYS
from tests.conftest import run_cli

DAY = dt.datetime(2026, 10, 1)
NODE = Node("gpu-h100-0000", 0, "slurm", "10.0.0.0", tuple(f"GPU-{i:04d}" for i in range(8)))
MODELS = [
    "stg_slurm__jobs",
    "stg_requests__requests",
    "stg_kubernetes__pod_allocations_kept",
    "stg_kubernetes__pending_requests",
    "int_slurm_workloads",
    "int_gateway_requests",
    "dim_workload",
]
SCHEMAS = {
    "int_slurm_workloads": "intermediate",
    "int_gateway_requests": "intermediate",
    "dim_workload": "marts",
}
POD_NODE = Node("k8s-h100-0000", 1, "kubernetes", "10.0.1.0", tuple(f"GPU-K{i}" for i in range(8)))
TABLES = {
    "stg_slurm__jobs": ("job_id", "job_state"),
    "stg_requests__requests": ("request_id", "outcome"),
}


def _run(run_id: int, state: str, hours: int = 1) -> Run:
    start = DAY + dt.timedelta(minutes=run_id)
    return Run(run_id, NODE, 0, 1, start, start + dt.timedelta(hours=hours), "acct-a", state)


def _request(number: int, outcome: str) -> Request:
    start = DAY + dt.timedelta(seconds=number)
    return Request(
        f"req-{number:04d}",
        "tenant-a",
        10,
        20,
        outcome,
        200 if outcome == "success" else 500,
        start,
        start + dt.timedelta(seconds=1),
        "stop",
        "bench-client/1.0",
    )


def _pod(run_id: int, start_hour: int, end_hour: int = 23) -> Run:
    start = DAY + dt.timedelta(hours=start_hour)
    return Run(
        run_id, POD_NODE, 0, 1, start, DAY + dt.timedelta(hours=end_hour), "ns-a", "COMPLETED"
    )


def _pods(
    watched: list[tuple[Run, str]] = (), listed: list[tuple[Run, str]] = ()
) -> dict[str, str]:
    """kubectl's files: a watch of (pod, phase) MODIFIED events, a List of pods."""
    files = {}
    if watched:
        events = [
            {"object": pod_object(r, phase, 100 + i), "type": "MODIFIED"}
            for i, (r, phase) in enumerate(watched)
        ]
        files["watch.jsonl"] = "".join(json.dumps(e) + "\n" for e in events)
    if listed:
        items = [pod_object(r, phase, 200 + i) for i, (r, phase) in enumerate(listed)]
        files["pods.json"] = json.dumps({"apiVersion": "v1", "items": items, "kind": "List"})
    return files


def _land(
    home: Path,
    policy: Path,
    folder: Path,
    runs: list[Run],
    requests: list[Request],
    extracted_at: dt.datetime,
    pods: dict[str, str] | None = None,
) -> None:
    folder.mkdir(parents=True)
    files = []
    if runs:
        sacct = folder / "sacct.txt"
        sacct.write_text(HEADER + "\n" + "".join("\n".join(job_lines(r)) + "\n" for r in runs))
        files.append(("slurm", sacct))
    if requests:
        log = folder / "gateway.jsonl"
        write_requests_day(log, requests)
        files.append(("requests", log))
    for name, text in (pods or {}).items():
        (folder / name).write_text(text)
        files.append(("kubernetes", folder / name))
    for source, path in files:
        result = run_cli(
            home,
            policy,
            "ingest",
            source,
            "--file",
            str(path),
            "--extracted-at",
            extracted_at.isoformat(),
        )
        assert result.exit_code == 0, result.stdout + result.stderr


def _build(home: Path, keyed: str | None) -> str:
    """dbt run of the keyed staging models; its output."""
    environment = {} if keyed is None else {incremental.KEYED_VARIABLE: keyed}
    lines: list[str] = []
    selected = [f"+{model}" for model in MODELS]  # and the batch manifests they read
    selected.append("+stg_kubernetes__pod_allocations")  # the view over the pods kept
    run_dbt(home, ["run", "--select", *selected], environment, on_line=lines.append)
    return "\n".join(lines)


def _rows(home: Path, table: str) -> list[tuple]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        schema = SCHEMAS.get(table, "staging")
        return con.execute(f"select * from {schema}.{table} order by all").fetchall()


def _state(home: Path, table: str) -> dict[str, str]:
    key, column = TABLES[table]
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        return dict(con.execute(f"select {key}, {column} from staging.{table}").fetchall())


@pytest.fixture(scope="module")
def homes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("keyed")
    policy = write_policy(root / "policy", 8, ["slurm", "requests"])
    home = root / "home"
    first_at = DAY + dt.timedelta(days=1)
    # pod 7 watched early; pods 1-3 listed, and 5 pending (kubectl's files: no list is
    # known complete)
    pods = {n: _pod(n, n) for n in (1, 2, 3, 4, 5, 6, 7)}
    _land(
        home,
        policy,
        root / "first-watch",
        [],
        [],
        first_at - dt.timedelta(hours=12),
        _pods(watched=[(pods[7], "Running")]),
    )
    _land(
        home,
        policy,
        root / "first",
        [_run(1, "FAILED"), _run(2, "COMPLETED"), _run(3, "COMPLETED")],
        [_request(1, "error"), _request(2, "success"), _request(3, "success")],
        first_at,
        _pods(listed=[(pods[n], "Running") for n in (1, 2, 3)] + [(pods[5], "Pending")]),
    )
    first_batches = set(incremental.manifested_batches(home))
    prepare(home, policy)  # the policy snapshot and the salt a build reads
    whole_first = _build(home, None)
    # the second round: job 1 and request 1 corrected by a later extraction; job 2 and
    # request 2 re-exported from an extraction older than the first round's; new ones
    # pod 1 succeeded, pods 4 and 5 started, pod 6 is pending (watched); the new list has
    # pods 1, 3 and 4
    _land(
        home,
        policy,
        root / "second-late",
        [_run(1, "COMPLETED"), _run(4, "COMPLETED")],
        [_request(1, "success"), _request(4, "error")],
        first_at + dt.timedelta(hours=6),
        _pods(
            watched=[
                (pods[1], "Succeeded"),
                (pods[4], "Running"),
                (pods[5], "Running"),
                (pods[6], "Pending"),
            ],
            listed=[(pods[1], "Succeeded"), (pods[3], "Running"), (pods[4], "Running")],
        ),
    )
    _land(
        home,
        policy,
        root / "second-old",
        [_run(2, "TIMEOUT")],
        [_request(2, "error")],
        first_at - dt.timedelta(hours=6),
    )
    new = sorted(set(incremental.manifested_batches(home)) - first_batches)
    full = root / "full"
    shutil.copytree(home, full)
    for path in full.glob("warehouse.duckdb*"):
        path.unlink()
    return {
        "home": home,
        "full": full,
        "new": new,
        "whole_first": whole_first,
        "keyed": _build(home, ",".join(new)),
        "whole": _build(full, None),
    }


def test_a_keyed_run_recomputes_only_the_keys_its_batches_name(homes: dict) -> None:
    print(homes["keyed"])
    # the second round: sacct, gateway, pod watch and pod list; the older sacct and gateway
    assert len(homes["new"]) == 6
    assert "gpuledger kept by key" not in homes["whole_first"]
    recomputed = dict(
        re.findall(r"gpuledger kept by key: (\w+) recomputed (\d+) key\(s\) of 6", homes["keyed"])
    )
    # jobs 1, 2 and 4; requests 1, 2 and 4: not job 3 or request 3; pods 1, 3, 4, 5 and 6,
    # not 2 or 7, and of the pending ones 6, not 5; downstream, the workloads of jobs 1 and
    # 4 and the requests 1 and 4 only (the reports of job 2 and request 2 from the older
    # extraction lost: their rows did not change)
    assert recomputed == {
        "stg_slurm__jobs": "3",
        "stg_requests__requests": "3",
        "stg_kubernetes__pod_allocations_kept": "5",
        "stg_kubernetes__pending_requests": "1",
        "int_slurm_workloads": "2",
        "int_gateway_requests": "2",
        "dim_workload": "2",
    }


def test_a_keyed_history_equals_staging_built_whole(homes: dict) -> None:
    for table in MODELS:
        kept, whole = _rows(homes["home"], table), _rows(homes["full"], table)
        assert kept == whole, table
        assert len(kept) == {"stg_kubernetes__pod_allocations_kept": 7}.get(
            table, 2 if "pending" in table else 4
        )
    jobs = _state(homes["home"], "stg_slurm__jobs")
    assert jobs == {"1": "COMPLETED", "2": "COMPLETED", "3": "COMPLETED", "4": "COMPLETED"}
    requests = _state(homes["home"], "stg_requests__requests")
    assert requests == {
        "req-0001": "success",
        "req-0002": "success",
        "req-0003": "success",
        "req-0004": "error",
    }
    with duckdb.connect(str(homes["home"] / "warehouse.duckdb"), read_only=True) as con:
        pods = con.execute(
            "select pod_name, finished_at_source, finished_at, observed_through_at "
            "from staging.stg_kubernetes__pod_allocations order by pod_name"
        ).fetchall()
    assert [row[:3] for row in pods] == [
        ("train-1-0001", "terminated", DAY + dt.timedelta(hours=23)),
        ("train-2-0002", None, None),
        ("train-3-0003", None, None),
        ("train-4-0004", None, None),
        ("train-5-0005", None, None),
        ("train-6-0006", None, None),
        ("train-7-0007", None, None),
    ]
    # open pods run at least until the cluster's latest observation: the second round's
    assert {row[3] for row in pods} == {DAY + dt.timedelta(days=1, hours=6)}


def test_a_run_naming_no_new_batch_changes_nothing(homes: dict, tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(homes["home"], home)
    before = {table: _rows(home, table) for table in MODELS}
    output = _build(home, "-")
    assert re.findall(r"recomputed (\d+) key\(s\) of 0", output) == ["0"] * len(MODELS)
    assert {table: _rows(home, table) for table in MODELS} == before


def test_a_window_names_the_new_batches_to_the_keyed_models() -> None:
    found = incremental.Window(
        dt.date(2026, 10, 1), dt.date(2026, 10, 2), ("a1", "b2"), False, "x", keyed=True
    )
    assert found.environment()[incremental.KEYED_VARIABLE] == "a1,b2"
    assert found.done().environment()[incremental.KEYED_VARIABLE] == "a1,b2"
    none_new = dataclasses.replace(found, batches=())
    assert none_new.environment()[incremental.KEYED_VARIABLE] == "-"
    whole = dataclasses.replace(found, full_refresh=True, keyed=False)
    assert whole.environment()[incremental.KEYED_VARIABLE] == ""


def test_every_keyed_model_of_the_project_is_registered() -> None:
    """gpuledger.core.incremental knows every model materialized by_key (the batches it is
    handed, its fingerprint), and a build records its batches only when it ran them all."""
    manifest = json.loads(prepare_manifest().read_text())
    found = {
        (node["schema"], node["name"])
        for node in manifest["nodes"].values()
        if node["resource_type"] == "model" and node["config"]["materialized"] == "by_key"
    }
    assert found == {(schema, name) for schema, name, _ in incremental.KEYED_MODELS}
    assert {tuple(key.path) for key in INCREMENTAL_KEYS} >= found
