"""An iterator computed one item ahead in a thread, so that producing the next item (parsing
a chunk: Arrow's kernels and CSV reader release the GIL) overlaps consuming this one (writing
it: Parquet encoding and hashing release it too). On a 2-core machine this is how an ingest
uses its second core.

    for chunk in ahead(stream.feed(text, final=last) for text, last in pieces):
        write(chunk)

Items come out in order; at most `depth` wait made and unread, so memory stays bounded by
`depth + 2` items. An exception the producer raises is raised by the consumer's loop at the
item where it happened; a consumer that stops early (break, an exception of its own) stops the
producer before `ahead` returns, and the producer's pending work is dropped.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")

_DONE = object()


class _Raised:
    def __init__(self, error: BaseException) -> None:
        self.error = error


def ahead(items: Iterable[T], depth: int = 1) -> Iterator[T]:
    """`items`, each produced in a background thread while the one before is consumed."""
    made: queue.Queue[object] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(item: object) -> bool:
        while not stop.is_set():
            try:
                made.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not put(item):
                    return
        except BaseException as error:  # handed to the consumer, raised there
            put(_Raised(error))
            return
        put(_DONE)

    thread = threading.Thread(target=produce, name="gpuledger-ahead", daemon=True)
    thread.start()
    try:
        while True:
            item = made.get()
            if item is _DONE:
                return
            if isinstance(item, _Raised):
                raise item.error
            yield item  # type: ignore[misc]
    finally:
        stop.set()
        thread.join()
