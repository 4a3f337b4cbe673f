"""Kubernetes evidence from files: a `kubectl get ... -o json` List or a watch event stream
lands as one batch. Live mode (`extractors.kubernetes.live`) reads the API server instead;
this module, and so every file ingest and the CLI's start-up, never imports the `kubernetes`
client. What a live run is told (`LiveOptions`) and how it fails live here too, for the
command's arguments."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from extractors.filebatch import DEFAULT_READ, ReadOptions, SourceFileError, land_file
from extractors.jsonmembers import ArrayMemberReader, NotStreamed
from extractors.kubernetes.parse import (
    ParseOptions,
    WatchStream,
    item_observation,
    list_context,
    parse_document,
    parse_observations,
    starts_with_event,
)
from extractors.kubernetes.records import RAW_TABLES
from extractors.landing import LandingReport
from extractors.records import ParseResult
from extractors.textfile import beginning, land_pieces, text_pieces

SOURCE = "kubernetes"


class KubernetesLiveError(SourceFileError):
    """The API server cannot be reached or refuses a request (the message names it)."""


@dataclass(frozen=True)
class LiveOptions:
    batch_events: int = 500
    batch_seconds: float = 30.0
    max_events: int | None = None  # stop after this many watch events (lists do not count)
    timeout_seconds: float | None = None  # stop after this long
    watch_seconds: int = 300  # the server-side timeout of one watch request
    page_size: int = 500  # list page size (limit/continue)


def ingest_file(
    home: Path, path: Path, options: ParseOptions, read: ReadOptions = DEFAULT_READ
) -> LandingReport:
    """Land a List or watch-event file. A List is dated by `read.extracted_at` (it carries
    no time; without one it is refused); watch events by it, else each by its own time.
    Both are read piece by piece, so memory does not grow with the file: watch events by
    WatchStream, a List's items one at a time by ListStream once `list_members` has read
    its other members. A List that is not read so (invalid JSON, no `items` list, no
    --extracted-at, an invalid byte) is read whole, which refuses it naming what is wrong
    (or names where the byte it replaced was)."""
    if starts_with_event(beginning(path, read)):
        return land_pieces(
            home,
            path,
            source=SOURCE,
            parser=WatchStream(options, read.extracted_at),
            row_types=RAW_TABLES,
            options=options.fingerprint(),
            read=read,
        )
    members = list_members(path, read)
    if members is not None and read.extracted_at is not None:
        return land_pieces(
            home,
            path,
            source=SOURCE,
            parser=ListStream(options, read.extracted_at, members),
            row_types=RAW_TABLES,
            options=options.fingerprint(),
            read=read,
        )
    return land_file(
        home,
        path,
        source=SOURCE,
        parse=lambda text: parse_document(text, options, read.extracted_at),
        row_types=RAW_TABLES,
        options=options.fingerprint(),
        read=read,
    )


def list_members(path: Path, read: ReadOptions) -> dict[str, object] | None:
    """The top-level members of the List in `path` other than `items` (kind, metadata: kubectl
    writes them after the items), read piece by piece with its items decoded and dropped;
    None when it is not read item by item: not one JSON object with an `items` list and at
    least one item, invalid JSON, an object that is a watch event (`type` and `object`), or
    an invalid byte (refused, or landed as U+FFFD, the whole read names the JSON path of the
    value that holds it, items[i]..., where a piece knows only its line and column)."""
    reader, items = ArrayMemberReader("items"), 0
    try:
        for text, last in text_pieces(path, replace(read, errors="strict"), quiet=True):
            items += len(reader.feed(text, last))
    except (NotStreamed, UnicodeDecodeError):
        return None
    if items == 0 or ("type" in reader.members and "object" in reader.members):
        return None
    return reader.members


class ListStream:
    """A List's items parsed piece by piece (extractors.textfile.land_pieces): the same
    records, rows and rejects as `parse_document` reading the file whole, with memory for a
    piece and the item it ends in the middle of (extractors.jsonmembers). `members`: the
    List's other top-level members (its kind and metadata), which kubectl writes after
    `items`, so they are read first (list_members)."""

    def __init__(
        self, options: ParseOptions, observed_at: dt.datetime, members: Mapping[str, object]
    ) -> None:
        self.options, self.observed_at = options, observed_at
        self.context = list_context(members)
        self.reader = ArrayMemberReader("items")
        self.items = 0

    def parse(self, text: str, line: int, final: bool) -> ParseResult:
        observations = []
        for item in self.reader.feed(text, final):
            observations.append(item_observation(self.items, item, self.observed_at, self.context))
            self.items += 1
        return parse_observations(observations, self.options)

    def end(self) -> ParseResult:
        """Nothing more: a List is dated by --extracted-at."""
        return ParseResult()
