"""Work made ahead in threads (extractors.ahead, SacctStream.submit, SurveysAhead): items come
out in order, an error where it happened, and a consumer that stops early stops the producer."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from extractors.ahead import ahead
from extractors.filebatch import DEFAULT_READ, SourceFileError
from extractors.slurm.stream import SacctStream
from extractors.textfile import SurveysAhead, survey
from tests.extractors.slurm_samples import TEXT_2205, read


def test_items_in_order_made_in_another_thread() -> None:
    made_in: set[str] = set()

    def items():
        for number in range(50):
            made_in.add(threading.current_thread().name)
            yield number

    assert list(ahead(items())) == list(range(50))
    assert made_in == {"gpuledger-ahead"}


def test_an_error_is_raised_at_the_item_where_it_happened() -> None:
    def items():
        yield 1
        yield 2
        raise ValueError("line 3: bad")

    got = []
    with pytest.raises(ValueError, match="line 3: bad"):
        for item in ahead(items()):
            got.append(item)
    assert got == [1, 2]


def test_a_consumer_that_stops_early_stops_the_producer() -> None:
    made = []

    def items():
        for number in range(1000):
            made.append(number)
            yield number

    for item in ahead(items(), depth=1):
        if item == 3:
            break
    assert not [t for t in threading.enumerate() if t.name == "gpuledger-ahead"]
    assert len(made) <= 3 + 1 + 2  # the item taken, one waiting, one being put


def _pieces(text: str, size: int) -> list[tuple[str, bool]]:
    lines = text.splitlines(keepends=True)
    pieces = ["".join(lines[i : i + size]) for i in range(0, len(lines), size)]
    return [(piece, i == len(pieces) - 1) for i, piece in enumerate(pieces)]


def test_chunks_read_by_a_pool_equal_chunks_fed_one_by_one() -> None:
    text = read(TEXT_2205)
    alone = SacctStream(cluster="x")
    fed = [alone.feed(piece, final=last) for piece, last in _pieces(text, 3)]
    pooled = SacctStream(cluster="x")
    with ThreadPoolExecutor(2) as pool:
        given = [pooled.submit(piece, final=last, pool=pool) for piece, last in _pieces(text, 3)]
        chunks = [chunk() for chunk in given]
    assert len(chunks) == len(fed) > 3
    for one, other in zip(fed, chunks, strict=True):
        assert one.rows.equals(other.rows)
        assert one.rejected == other.rejected
    assert (alone.records_read, alone.warnings) == (pooled.records_read, pooled.warnings) != (0, [])


def test_chunks_are_given_in_the_order_submitted() -> None:
    stream = SacctStream(cluster="x")
    first = stream.submit(read(TEXT_2205), final=True)
    second = stream.submit("", final=True)
    with pytest.raises(RuntimeError, match="chunk 1 given out of turn"):
        second()
    assert first().records_read == stream.records_read > 0


def test_surveys_made_ahead_equal_surveys_made_in_turn(tmp_path) -> None:
    paths = []
    for number in range(3):
        path = tmp_path / f"sacct-{number}.txt"
        path.write_bytes(read(TEXT_2205).encode() + f"\n# {number}\n".encode())
        paths.append(path)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"JobID|JobName\n1|ok\n2|caf\xe9\n")
    paths.append(bad)
    paths.append(tmp_path / "missing.txt")
    options = {"source": "slurm", "options": "cluster=x"}
    with SurveysAhead(paths) as surveys:
        got = [surveys(path, DEFAULT_READ, **options) for path in paths[:-1]]
        with pytest.raises(SourceFileError, match=r"missing\.txt: cannot read"):
            surveys(paths[-1], DEFAULT_READ, **options)
        # asked with other options than made ahead: made then, not the one made ahead
        other = surveys(paths[0], DEFAULT_READ, source="slurm", options="cluster=y")
    assert got == [survey(path, DEFAULT_READ, **options) for path in paths[:-1]]
    assert len({found.batch_id for found in got}) == 4
    assert got[-1].bad_place == (3, 5) and got[-1].bad_byte == 0xE9
    assert other == survey(paths[0], DEFAULT_READ, source="slurm", options="cluster=y")
    assert other.batch_id != got[0].batch_id
