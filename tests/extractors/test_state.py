"""extractors.state: a declared cursor per source, one JSON document per stream."""

from __future__ import annotations

import fcntl
import json
import threading
from pathlib import Path

import pytest

from extractors.state import Cursor, StateError

COUNTER = Cursor(
    source="demo",
    key="count",
    decode=int,
    encode=str,
    what="counter",
    remedy="; remove it to start again",
)


def test_a_stream_is_one_document_under_its_source(tmp_path: Path) -> None:
    stream = COUNTER.stream(tmp_path, "east", cluster="east", server="https://east")
    assert stream.path == tmp_path / "state" / "demo" / "east.json"
    assert stream.load() is None
    assert not (tmp_path / "state").exists()  # reading creates nothing
    stream.save(3)
    document = json.loads(stream.path.read_text())
    assert list(document) == ["cluster", "server", "count", "updated_at"]
    assert (document["cluster"], document["server"], document["count"]) == (
        "east",
        "https://east",
        "3",
    )
    assert document["updated_at"].endswith("Z")
    assert stream.load() == 3
    assert sorted(p.name for p in stream.path.parent.iterdir()) == [".lock", "east.json"]


def test_advance_reads_and_writes_the_saved_value(tmp_path: Path) -> None:
    stream = COUNTER.stream(tmp_path, "east")
    assert stream.advance(lambda saved: (saved or 0) + 1) == 1
    assert stream.advance(lambda saved: (saved or 0) + 1) == 2
    assert stream.load() == 2


def test_advance_waits_for_the_lock(tmp_path: Path) -> None:
    stream = COUNTER.stream(tmp_path, "east")
    stream.save(1)
    done = threading.Event()
    with (stream.path.parent / ".lock").open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        writer = threading.Thread(
            target=lambda: (stream.advance(lambda saved: (saved or 0) + 1), done.set())
        )
        writer.start()
        assert not done.wait(0.3)
        assert stream.load() == 1
        fcntl.flock(held, fcntl.LOCK_UN)
    writer.join(5)
    assert done.is_set()
    assert stream.load() == 2


@pytest.mark.parametrize(
    "text",
    ["{not json", '{"other": 1}', '{"count": "three"}', "[1, 2]", '{"count": null}'],
)
def test_an_unreadable_file_is_named_with_what_to_do(tmp_path: Path, text: str) -> None:
    stream = COUNTER.stream(tmp_path, "east")
    stream.path.parent.mkdir(parents=True)
    stream.path.write_text(text)
    with pytest.raises(StateError) as err:
        stream.load()
    message = str(err.value)
    assert message.startswith(f"{stream.path}: unreadable counter (")
    assert message.endswith("); remove it to start again")
