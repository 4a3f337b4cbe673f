"""`gpuledger ingest kubernetes --file`: counts, idempotence, quarantine and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from extractors.kubernetes.client import state_name
from extractors.kubernetes.live import watch_state
from extractors.state import StateError
from tests.conftest import FIXTURES, run_cli

K8S = FIXTURES / "kubernetes"
CLUSTER_LIST = K8S / "kubectl-get-pods-namespaces-resourcequotas-nodes.json"
LISTED_AT = ("--extracted-at", "2026-11-05T00:00:00Z")  # a List carries no time of its own


def _rows(home: Path, table: str) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for path in sorted((home / "raw" / table).glob("*.parquet")):
        rows.extend(pq.read_table(path).to_pylist())
    return rows


def test_file_ingest_reports_counts_and_is_idempotent(home: Path) -> None:
    first = run_cli(home, None, "ingest", "kubernetes", "--file", str(CLUSTER_LIST), *LISTED_AT)
    assert first.exit_code == 0, first.stderr
    assert "read 22, landed 22, quarantined 0" in first.stdout
    assert "kubernetes_pod_allocations 10" in first.stdout
    again = run_cli(home, None, "ingest", "kubernetes", "--file", str(CLUSTER_LIST), *LISTED_AT)
    assert "already landed" in again.stdout
    assert len(_rows(home, "kubernetes_pod_allocations")) == 10
    assert {r["cluster"] for r in _rows(home, "kubernetes_pod_allocations")} == {"default"}
    # Parse options are part of the batch identity: other replicas, another batch.
    other = run_cli(
        home, None, "ingest", "kubernetes", "--file", str(CLUSTER_LIST), *LISTED_AT,
        "--timeslice-replicas", "2",
    )  # fmt: skip
    assert "already landed" not in other.stdout
    assert len(_rows(home, "kubernetes_pod_allocations")) == 20


def test_bad_records_are_quarantined_with_file_index_field_and_reason(home: Path) -> None:
    path = K8S / "bad-items.json"
    result = run_cli(home, None, "ingest", "kubernetes", "--file", str(path), *LISTED_AT)
    assert result.exit_code == 0
    assert "read 9, landed 1, quarantined 8" in result.stdout
    assert f"quarantined {path}:1: field spec.containers[0].resources.limits." in result.stdout
    quarantined = _rows(home, "quarantine")
    assert len(quarantined) == 8
    assert {q["source"] for q in quarantined} == {"kubernetes"}
    assert {q["file"] for q in quarantined} == {str(path)}
    no_uid = next(q for q in quarantined if q["line"] == 0)
    assert (no_uid["field"], no_uid["reason"]) == (
        "metadata.uid",
        "items[0] Pod team-b/notebook-alice-0: no metadata.uid",
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            (K8S / "bad-truncated-list.json").read_bytes(),
            "line 63 column 6: invalid JSON: Expecting property name enclosed in double quotes",
        ),
        (b"", "empty file: expected a Kubernetes List or watch events"),
        (
            b"\xff\xfe{}",
            "invalid UTF-8 byte 0xff (give --encoding if the file is in another encoding, or "
            "--errors replace to land it with U+FFFD in place of each invalid byte)",
        ),
        (
            b"NAME READY STATUS\nweb-0 1/1 Running\n",
            "line 1: expected a JSON object (a List or a watch event)",
        ),
    ],
)
def test_unreadable_files_are_errors_naming_the_file(
    home: Path, tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "input.json"
    path.write_bytes(content)
    result = run_cli(home, None, "ingest", "kubernetes", "--file", str(path), *LISTED_AT)
    assert result.exit_code == 1
    where = f"{path}:1: column 1" if message.startswith("invalid UTF-8") else str(path)
    assert result.stderr == f"gpuledger: {where}: {message}\n"


def test_missing_file_is_an_error(home: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    result = run_cli(home, None, "ingest", "kubernetes", "--file", str(missing))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"gpuledger: {missing}: cannot read")


def test_file_and_live_are_exclusive(home: Path) -> None:
    with pytest.raises(SystemExit) as exit_info:
        run_cli(home, None, "ingest", "kubernetes", "--file", str(CLUSTER_LIST), "--live")
    assert exit_info.value.code == 2


@pytest.mark.parametrize("value", ["0", "-1", "x"])
def test_replicas_must_be_positive(home: Path, value: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        run_cli(
            home, None, "ingest", "kubernetes", "--file", str(CLUSTER_LIST),
            "--timeslice-replicas", value,
        )  # fmt: skip
    assert exit_info.value.code == 2


def test_missing_kubeconfig_is_an_error(home: Path, tmp_path: Path) -> None:
    config = tmp_path / "no-such-kubeconfig"
    result = run_cli(home, None, "ingest", "kubernetes", "--live", "--kubeconfig", str(config))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"gpuledger: {config}: ")


def test_unknown_context_is_an_error(home: Path, tmp_path: Path) -> None:
    config = tmp_path / "kubeconfig"
    config.write_text(
        "apiVersion: v1\nkind: Config\n"
        "clusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:9\n"
        "users:\n- name: u\n  user: {}\n"
        "contexts:\n- name: ctx\n  context:\n    cluster: c\n    user: u\n"
        "current-context: ctx\n"
    )
    result = run_cli(
        home, None, "ingest", "kubernetes", "--live", "--kubeconfig", str(config),
        "--context", "other",
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr == f"gpuledger: {config}: no context 'other'\n"


def test_unreadable_watch_state_is_an_error(tmp_path: Path) -> None:
    state = watch_state(tmp_path, "lab", "https://lab:6443")
    assert state.load() is None
    state.path.parent.mkdir(parents=True)
    state.path.write_text("{not json")
    with pytest.raises(StateError, match=f"{state.path}: unreadable watch state"):
        state.load()
    state.path.write_text(json.dumps({"resource_versions": {"pods": "12", "nodes": ""}}))
    assert state.load() == {"pods": "12"}


@pytest.mark.parametrize(
    ("cluster", "name"),
    [("prod-ai-1", "prod-ai-1"), ("127.0.0.1:6443", "127.0.0.1_6443"), ("a/b c", "a_b_c")],
)
def test_state_file_names(cluster: str, name: str) -> None:
    assert state_name(cluster) == name
