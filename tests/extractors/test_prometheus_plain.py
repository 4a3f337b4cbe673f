"""Series in Prometheus's own layout are converted from their bytes (PlainSeries): they land
exactly as the same series decoded point by point would, chunk for chunk, rejection for
rejection, and whatever is not in that layout (or not JSON) still goes the decoded way."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from extractors.prometheus import parse, response
from extractors.prometheus.parse import Chunk, parse_query_range
from extractors.prometheus.response import PlainSeries, plain_series
from tests.extractors.prometheus_samples import SCRAPED_AT

LABELS = {"__name__": "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "UUID": "GPU-1", "Hostname": "n1"}


def compact(series: list[object]) -> bytes:
    """A response as Prometheus writes it: no spaces."""
    document = {"status": "success", "data": {"resultType": "matrix", "result": series}}
    return json.dumps(document, separators=(",", ":")).encode()


def series(gpu: int, values: list[list[object]], **labels: str) -> dict[str, object]:
    return {"metric": {**LABELS, "UUID": f"GPU-{gpu}", **labels}, "values": values}


def steps(count: int, start: int = SCRAPED_AT) -> list[list[object]]:
    return [[start + 60 * i, f"{(i * 37 % 101) / 100:g}"] for i in range(count)]


def chunks(body: bytes, *, plain: bool, chunk_points: int = 50) -> list[Chunk]:
    """The chunks of `body` in blocks of 97 bytes, with or without the plain path."""
    blocks = [body[i : i + 97] for i in range(0, len(body), 97)]
    saved = response.plain_series
    if not plain:
        response.plain_series = lambda raw: None
    try:
        return list(parse_query_range(blocks, chunk_points=chunk_points))
    finally:
        response.plain_series = saved


def as_rows(result: list[Chunk]) -> list[object]:
    return [
        (c.series, c.points.to_pylist(), c.rejected, c.records_read, c.points.schema)
        for c in result
    ]


def plain_count(body: bytes) -> int:
    return sum(
        isinstance(element, PlainSeries) for _, element in response.Response([body]).elements()
    )


@pytest.fixture(autouse=True, params=[1 << 16, 7], ids=["batch", "tiny-batch"])
def batch_points(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Plain series converted many at a time, and a few points at a time."""
    monkeypatch.setattr(parse, "PLAIN_BATCH_POINTS", request.param)
    yield


ODD_NUMBERS = [".5", "1.", "+1", "-0", "1e5", "1e", "-", "1.2.3", "", "1E+3"]
CASES: dict[str, tuple[list[object], int]] = {
    # name: (series, how many are plain)
    "clean": ([series(g, steps(40 + g)) for g in range(6)], 6),
    "one long series over chunks": ([series(1, steps(333))], 1),
    "NaN and +Inf values": (
        [
            series(1, steps(5)),
            series(2, [*steps(3), [SCRAPED_AT + 999, "NaN"]]),
            series(3, [[SCRAPED_AT, "+Inf"]]),
            series(4, steps(4)),
        ],
        2,
    ),
    "values past a double": ([series(1, [[SCRAPED_AT, "1e999"], [SCRAPED_AT + 60, "2"]])], 1),
    "values at and beyond the limit": (
        [
            series(1, [[SCRAPED_AT, "1e18"], [SCRAPED_AT + 60, "-1e18"]]),
            series(2, [[SCRAPED_AT, "2"], [SCRAPED_AT + 60, "1.0000001e18"]]),
        ],
        2,
    ),
    "odd number texts": (
        [series(g, [[SCRAPED_AT, text]]) for g, text in enumerate(ODD_NUMBERS)],
        10,
    ),
    "times with fractions": ([series(1, [[SCRAPED_AT + 0.5, "1"], [SCRAPED_AT + 60, "2"]])], 0),
    "time zero and huge times": (
        [series(1, [[0, "1"]]), series(2, [[999999999999999, "1"]]), series(3, [[10**17, "2"]])],
        3,
    ),
    "a time of 22 digits": ([series(1, [[10**21 * 5, "1"]])], 1),
    "a negative time": ([series(1, [[-60, "1"], [0, "2"]])], 0),
    "a number value": ([series(1, [[SCRAPED_AT, 1.5]])], 0),
    "a null value": ([series(1, [[SCRAPED_AT, None], [SCRAPED_AT + 60, "1"]])], 0),
    "a point of three": ([series(1, [[SCRAPED_AT, "1", "2"]])], 0),
    "labels that look like the layout": (
        [
            series(1, steps(3), pod='x"]]},"values":[[1,"2"]]'),
            series(2, steps(3), pod=',"values":['),
        ],
        1,
    ),
    "a label that is not a string": ([{"metric": {**LABELS, "gpu": 0}, "values": steps(2)}], 0),
    "another family": (
        [{"metric": {"__name__": "up"}, "values": steps(3)}, series(1, steps(2))],
        2,
    ),
    "a DCGM series without a UUID": (
        [{"metric": {"__name__": "DCGM_FI_DEV_FB_USED"}, "values": steps(3)}],
        1,
    ),
    "histograms after the values": ([{**series(1, steps(2)), "histograms": []}], 0),
    "values first": ([{"values": steps(2), "metric": LABELS}], 0),
    "no values": ([series(1, [])], 0),
    "a unicode label": ([series(1, steps(2), pod="träning-ø")], 1),
}


@pytest.mark.parametrize("name", list(CASES))
def test_plain_series_land_as_the_decoded_ones(name: str) -> None:
    body = compact(CASES[name][0])
    assert plain_count(body) == CASES[name][1]
    assert as_rows(chunks(body, plain=True)) == as_rows(chunks(body, plain=False))


def test_a_mix_of_layouts_in_one_response_keeps_its_order() -> None:
    plain = compact([series(g, steps(9 + g)) for g in range(5)])
    spaced = json.dumps(series(9, steps(4))).encode()  # spaces: decoded
    body = plain.replace(b'[{"metric"', b"[" + spaced + b',{"metric"', 1)
    body = body.replace(b"]]}]}}", b"]]}," + spaced + b"]}}")
    assert plain_count(body) == 5
    got = chunks(body, plain=True, chunk_points=7)
    assert as_rows(got) == as_rows(chunks(body, plain=False, chunk_points=7))
    lines = [line for c in got for line in c.points.column("source_line").to_pylist()]
    assert lines == list(range(1, 4 + sum(9 + g for g in range(5)) + 4 + 1))


@pytest.mark.parametrize(
    "body",
    [b'[1x,"2"]', b'[01,"2"]', b'[1,"2"],', b'[1,"2"]x', b'[,"2"]', b'[1,"2\\"]'],
    ids=["letter in a time", "leading zero", "trailing comma", "junk", "no time", "escape"],
)
def test_bytes_that_are_not_json_are_refused_as_before(body: bytes) -> None:
    document = b'{"status":"success","data":{"resultType":"matrix","result":[{"metric":'
    document += b'{"__name__":"DCGM_FI_DEV_FB_USED","UUID":"GPU-1"},"values":[' + body + b"]}]}}"
    assert plain_series(document[document.index(b'{"metric"') : -3]) is None
    errors = []
    for plain in (True, False):
        with pytest.raises(ValueError) as caught:
            chunks(document, plain=plain)
        errors.append(str(caught.value))
    assert errors[0] == errors[1]
    assert "not JSON (line 1, column" in errors[0]
