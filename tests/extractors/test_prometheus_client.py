"""extractors.prometheus.client: chunk planning, steps, file ingestion and CLI errors.

The live path against a real Prometheus is tests/integration/test_prometheus_live.py.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from extractors.prometheus.client import (
    MAX_POINTS_PER_SERIES,
    Chunk,
    guarded_query,
    ingest_file,
    is_selector,
    parse_step,
    plan_chunks,
)
from gpuledger.cli import main
from tests.conftest import run_cli

DAY = 86_400
T0 = 1_795_000_000 // 3600 * 3600  # a whole hour


def grid(chunks: list[Chunk]) -> list[int]:
    return [t for c in chunks for t in range(c.start, c.end + 1, c.step)]


def test_a_window_past_11000_points_splits_without_a_shared_boundary() -> None:
    chunks = plan_chunks(T0 - 8 * DAY, T0, 60)
    assert [c.points for c in chunks] == [11_000, 521]
    assert chunks[1].start == chunks[0].end + 60
    times = grid(chunks)
    assert times == list(range(T0 - 8 * DAY, T0 + 1, 60))  # each step once, none twice


def test_the_grid_is_aligned_to_whole_steps() -> None:
    (chunk,) = plan_chunks(T0 + 1, T0 + 3599, 60)
    assert (chunk.start, chunk.end) == (T0 + 60, T0 + 3540)
    assert plan_chunks(T0 + 1, T0 + 59, 60) == []


def test_covered_intervals_are_skipped() -> None:
    covered = [(T0 + 600, T0 + 1200), (T0 + 3000, T0 + 9999)]
    chunks = plan_chunks(T0, T0 + 3600, 60, covered=covered, max_points=5)
    times = grid(chunks)
    expected = [
        t for t in range(T0, T0 + 3601, 60) if not any(low <= t <= high for low, high in covered)
    ]
    assert times == expected
    assert all(c.points <= 5 for c in chunks)
    assert plan_chunks(T0, T0 + 3600, 60, covered=[(T0 - 60, T0 + 3600)]) == []


@pytest.mark.parametrize("max_points", [0, MAX_POINTS_PER_SERIES + 1])
def test_max_points_is_bounded_by_prometheus(max_points: int) -> None:
    with pytest.raises(ValueError, match="max points must be between 1 and 11000"):
        plan_chunks(T0, T0 + 60, 60, max_points=max_points)


@pytest.mark.parametrize(
    ("text", "seconds"), [("60", 60), ("60s", 60), ("5m", 300), ("1h", 3600), ("1d", 86400)]
)
def test_parse_step(text: str, seconds: int) -> None:
    assert parse_step(text) == seconds


@pytest.mark.parametrize("text", ["", "0s", "1.5m", "1w", "-60s", "60 s"])
def test_parse_step_refuses(text: str) -> None:
    with pytest.raises(ValueError, match="invalid step"):
        parse_step(text)


@pytest.mark.parametrize(
    ("left_open", "window"),
    [(False, "59999ms"), (True, "60s")],
    ids=["prometheus-2", "prometheus-3"],
)
def test_guarded_query_keeps_steps_holding_a_sample(left_open: bool, window: str) -> None:
    selector = 'DCGM_FI_DEV_FB_USED{Hostname="a"}'
    assert guarded_query(selector, 60, left_open_ranges=left_open) == (
        f"{selector} and count_over_time({selector}[{window}])"
    )


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("vllm:prompt_tokens_total", True),
        ('DCGM_FI_DEV_FB_USED{Hostname=~"gpu-node-.*",pod!=""}', True),
        ("sum by (model_name) (vllm:prompt_tokens_total)", False),
        ("rate(x[5m])", False),
    ],
)
def test_only_selectors_can_be_guarded(text: str, ok: bool) -> None:
    assert is_selector(text) is ok


# --- file mode -------------------------------------------------------------------------------


def response(values: list[list[object]]) -> str:
    series = {
        "metric": {"__name__": "DCGM_FI_DEV_FB_USED", "UUID": "GPU-1", "Hostname": "h"},
        "values": values,
    }
    return json.dumps({"status": "success", "data": {"resultType": "matrix", "result": [series]}})


def test_file_lands_once_and_quarantines_with_its_place(tmp_path: Path, home: Path) -> None:
    path = tmp_path / "fb.json"
    path.write_text(response([[T0, "1024"], [T0 + 60, "NaN"], [T0 + 120, "2048"]]))
    first = ingest_file(home, path)
    assert (first.records_read, first.records_landed, first.records_quarantined) == (3, 2, 1)
    assert first.rows_by_table == {"prometheus_series": 1, "prometheus_points": 2}
    assert first.rejected[0].field == "result[0].values[1]"
    again = ingest_file(home, path)
    assert again.already_landed and again.batch_id == first.batch_id


def test_cli_bad_file_names_the_file(tmp_path: Path, home: Path) -> None:
    path = tmp_path / "error.json"
    path.write_text('{"status":"error","errorType":"bad_data","error":"parse error at char 4"}')
    result = run_cli(home, None, "ingest", "prometheus", "--file", str(path))
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        f"gpuledger: {path}: Prometheus returned an error (bad_data): parse error at char 4"
    )


def test_cli_counts_and_quarantine_lines(tmp_path: Path, home: Path) -> None:
    path = tmp_path / "fb.json"
    path.write_text(response([[T0, "ERROR - FAILED TO CONVERT TO STRING"], [T0 + 60, "10"]]))
    result = run_cli(home, None, "ingest", "prometheus", "--file", str(path))
    assert result.exit_code == 0
    assert "read 2, landed 1, quarantined 1" in result.stdout
    assert (
        f"quarantined {path}:1: field result[0].values[0]: "
        "value 'ERROR - FAILED TO CONVERT TO STRING' is not a number"
    ) in result.stdout


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--live", "--url", "http://127.0.0.1:9"], "--live needs --start, --end"),
        (["--file", "x.json", "--url", "http://h"], "--url only go with --live"),
        (
            ["--live", "--url", "http://h", "--start", "2026-11-01", "--end", "yesterday"],
            "--end 'yesterday' is not an ISO 8601 time",
        ),
        (
            [
                "--live",
                "--url",
                "http://h",
                "--start",
                "2026-11-01",
                "--end",
                "2026-11-02",
                "--step",
                "1w",
            ],
            "invalid step '1w'",
        ),
        (
            [
                "--live",
                "--url",
                "http://h",
                "--start",
                "2026-11-01",
                "--end",
                "2026-11-02",
                "--max-points",
                "20000",
            ],
            "--max-points must be between 1 and 11000",
        ),
        (
            ["--live", "--url", "http://h", "--start", "2026-11-02", "--end", "2026-11-01"],
            "--end is before --start",
        ),
        (
            [
                "--live",
                "--url",
                "http://h",
                "--start",
                "2026-11-01",
                "--end",
                "2026-11-02",
                "--query",
                "sum(vllm:prompt_tokens_total)",
            ],
            "--query takes metric names or selectors",
        ),
    ],
)
def test_cli_usage_errors(
    home: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--home", str(home), "ingest", "prometheus", *args])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_cli_live_unreachable_server(home: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    result = run_cli(
        home, None, "ingest", "prometheus", "--live", "--url", url,
        "--start", "2026-11-01T00:00:00Z", "--end", "2026-11-01T01:00:00Z",
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr.startswith(f"gpuledger: {url}: cannot reach Prometheus: ")
    assert not (home / "state" / "prometheus").exists()  # nothing marked covered
