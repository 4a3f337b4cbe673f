"""A query_range response read in bounded memory: series landed once, every point landed or
quarantined, chunks of at most K points, and the same rows whichever way the bytes come."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from extractors.prometheus.client import ingest_file
from extractors.prometheus.parse import parse_query_range
from tests.extractors.prometheus_samples import SCRAPED_AT, assert_nothing_lost, parse_text


def gpu_series(gpu: int, values: list[list[object]]) -> dict[str, object]:
    labels = {
        "__name__": "DCGM_FI_DEV_POWER_USAGE",
        "UUID": f"GPU-{gpu}",
        "Hostname": "node-1",
        "gpu": str(gpu),
    }
    return {"metric": labels, "values": values}


def response(series: list[object], *, indent: int | None = None) -> str:
    document = {"status": "success", "data": {"resultType": "matrix", "result": series}}
    return json.dumps(document, indent=indent)


def steps(count: int, value: str = "300.5") -> list[list[object]]:
    return [[SCRAPED_AT + 60 * i, value] for i in range(count)]


def test_a_file_of_n_series_lands_n_series_rows_and_every_point(tmp_path: Path, home: Path) -> None:
    series = [gpu_series(gpu, steps(50)) for gpu in range(7)]
    series[3]["values"][10] = [SCRAPED_AT + 600, "NaN"]  # type: ignore[index]
    series.append({"metric": {"__name__": "up"}, "values": steps(4)})  # another family
    path = tmp_path / "power.json"
    path.write_text(response(series))
    report = ingest_file(home, path)
    assert (report.records_read, report.records_landed, report.records_quarantined) == (
        354,
        349,
        5,
    )
    assert report.rows_by_table == {"prometheus_series": 7, "prometheus_points": 349}
    raw = home / "raw"
    landed_series = pq.read_table(raw / "prometheus_series" / f"{report.batch_id}.parquet")
    points = pq.read_table(raw / "prometheus_points" / f"{report.batch_id}.parquet")
    assert sorted(landed_series.column("gpu_uuid").to_pylist()) == [f"GPU-{g}" for g in range(7)]
    assert set(points.column("series_key").to_pylist()) == set(
        landed_series.column("series_key").to_pylist()
    )
    lines = points.column("source_line").to_pylist() + [r.line for r in report.rejected]
    assert sorted(lines) == list(range(1, 355))
    (nan,) = [r for r in report.rejected if r.field == "result[3].values[10]"]
    assert nan.line == 3 * 50 + 11 and "not finite" in nan.reason


def test_the_parser_yields_chunks_of_at_most_k_points_as_it_reads() -> None:
    text = response([gpu_series(gpu, steps(300)) for gpu in range(10)]).encode()
    read = []

    def blocks() -> Iterator[bytes]:
        for start in range(0, len(text), 1024):
            read.append(start)
            yield text[start : start + 1024]

    sizes, read_at_first_chunk = [], None
    for chunk in parse_query_range(blocks(), chunk_points=250):
        sizes.append(chunk.points.num_rows)
        if read_at_first_chunk is None:
            read_at_first_chunk = len(read)
    assert sum(sizes) == 3000 and max(sizes) <= 250
    assert read_at_first_chunk is not None and read_at_first_chunk < len(read) / 4


@pytest.mark.parametrize("block", [1, 7, 4096])
@pytest.mark.parametrize("indent", [None, 2])
def test_the_rows_do_not_depend_on_blocks_or_layout(block: int, indent: int | None) -> None:
    series = [
        gpu_series(0, [[SCRAPED_AT + 0.25, "1"], [SCRAPED_AT + 60.001, "2.5"]]),
        {"metric": {"__name__": "DCGM_FI_DEV_GPU_UTIL", "UUID": 'GPU-"]]}x'}, "values": steps(3)},
        gpu_series(1, steps(2)),
    ]
    text = response(series, indent=indent).encode()
    chunks = list(parse_query_range([text[i : i + block] for i in range(0, len(text), block)]))
    expected = parse_text(response(series))
    got = [row for chunk in chunks for row in chunk.points.to_pylist()]
    assert got == [p.__dict__ for p in expected.tables["prometheus_points"]]
    assert [s for c in chunks for s in c.series] == expected.tables["prometheus_series"]


def test_column_wise_and_point_by_point_agree() -> None:
    times = [SCRAPED_AT + 0.001 * i + 60 * i for i in range(200)]
    good = [[t, f"{i}.25"] for i, t in enumerate(times)]
    whole = parse_text(response([gpu_series(0, good)]))  # every point good: column-wise
    one_bad = parse_text(response([gpu_series(0, [*good, [times[-1] + 60, "x"]])]))
    assert whole.tables["prometheus_points"] == one_bad.tables["prometheus_points"]
    assert len(one_bad.rejected) == 1
    assert_nothing_lost(one_bad)


def test_the_series_key_is_a_hash_of_the_sorted_labels() -> None:
    first = parse_text(response([gpu_series(0, steps(1))]))
    later = parse_text(response([gpu_series(0, [[SCRAPED_AT + 3600, "1"]])]))
    (series,) = first.tables["prometheus_series"]
    assert series.series_key == hashlib.sha256(series.series_labels.encode()).hexdigest()[:24]
    assert later.tables["prometheus_series"][0].series_key == series.series_key


def test_bytes_that_are_not_json_name_the_line_and_column() -> None:
    text = response([gpu_series(0, steps(2)), gpu_series(1, steps(2))], indent=1)
    broken = text.replace('"gpu": "1"', '"gpu": 1 2')
    line = next(n for n, row in enumerate(broken.split("\n"), 1) if "1 2" in row)
    column = broken.split("\n")[line - 1].index("2") + 1
    with pytest.raises(ValueError, match=rf"not JSON \(line {line}, column {column}: "):
        list(parse_query_range([broken.encode()]))


@pytest.mark.parametrize(
    ("result", "message"),
    [
        ('{"metric":{},"values":[]},]', "a ',' before the end of data.result"),
        ('{"metric":{},"values":[]},,"x"]', "unexpected ','"),
        ('{"metric":{},"values":[]} ["a]"]]', "expected ',' or ']' in data.result"),
    ],
)
def test_the_result_array_is_json_between_its_elements(result: str, message: str) -> None:
    text = '{"status":"success","data":{"resultType":"matrix","result":[' + result + "}}"
    with pytest.raises(ValueError, match=re.escape(message)):
        list(parse_query_range([text.encode()]))


def test_elements_that_are_not_series_are_rejected_whole() -> None:
    result = parse_text(response([["a]]}a"], "GPU-1", gpu_series(0, steps(1))]))
    assert [(r.line, r.field) for r in result.rejected] == [(1, "result[0]"), (2, "result[1]")]
    assert [p.source_line for p in result.tables["prometheus_points"]] == [3]
