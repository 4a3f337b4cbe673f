"""Resume state of the live extractors: a declared cursor per source, one JSON file per stream.

A live extractor that resumes declares a `Cursor` (as dlt declares `dlt.sources.incremental`
and Meltano a `replication_key`): the source, the `key` of the document that holds the cursor
value, and how that value is read from and written to JSON. One stream of the source (a
Slurm cluster, a Kubernetes cluster, a Prometheus URL + query + step) keeps its cursor in
`<home>/state/<source>/<name>.json`:

    {<the stream's identity fields>, <key>: <cursor value>, "updated_at": "...Z"}

Only the cursor value is ever read back. A write goes to a temporary file renamed over the
old one, so a reader sees the old document or the new one, never half of one; writes (and the
read-modify-write of `advance`) hold `<home>/state/<source>/.lock`, so two runs of one stream
never lose each other's progress. A file that cannot be read is an error naming the file.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from extractors.filebatch import SourceFileError

T = TypeVar("T")


class StateError(SourceFileError):
    """A state file cannot be read (the message names it and what to do about it)."""


def source_dir(home: Path, source: str) -> Path:
    """Where a source keeps its state (cursor files, a sampler's spool)."""
    return home / "state" / source


@dataclass(frozen=True)
class Cursor(Generic[T]):
    """What one source resumes from: the document key, and the value's JSON form.

    `decode` turns the stored JSON value into the cursor value (raising ValueError, KeyError
    or TypeError when it is not one); `encode` is its inverse. `what` names the file in an
    error (`watermark`, `watch state`), `remedy` says what to do about it.
    """

    source: str
    key: str
    decode: Callable[[Any], T]
    encode: Callable[[T], Any]
    what: str = "state"
    remedy: str = ""

    def stream(self, home: Path, name: str, **identity: object) -> Stream[T]:
        """The stream `name` (a file name: the caller makes it safe), written with `identity`."""
        return Stream(self, home, name, identity)


@dataclass(frozen=True)
class Stream(Generic[T]):
    """The cursor of one stream of a source: `<home>/state/<source>/<name>.json`."""

    cursor: Cursor[T]
    home: Path
    name: str
    identity: Mapping[str, object] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        return source_dir(self.home, self.cursor.source) / f"{self.name}.json"

    def load(self) -> T | None:
        """The saved cursor value; None before the first save."""
        try:
            document = json.loads(self.path.read_text())
            return self.cursor.decode(document[self.cursor.key])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
            raise StateError(
                f"{self.path}: unreadable {self.cursor.what} ({err}){self.cursor.remedy}"
            ) from None

    def save(self, value: T) -> None:
        with self._locked():
            self._write(value)

    def advance(self, step: Callable[[T | None], T]) -> T:
        """Save `step(saved value)`, reading and writing under the lock; returns what it saved."""
        with self._locked():
            value = step(self.load())
            self._write(value)
        return value

    def _write(self, value: T) -> None:
        updated_at = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        document = {**self.identity, self.cursor.key: self.cursor.encode(value)}
        document["updated_at"] = updated_at
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(document, indent=2) + "\n")
        tmp.replace(self.path)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        folder = source_dir(self.home, self.cursor.source)
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / ".lock").open("w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
