"""Kubernetes evidence from files: a `kubectl get ... -o json` List or a watch event stream
lands as one batch. Live mode (`extractors.kubernetes.live`) reads the API server instead;
this module, and so every file ingest and the CLI's start-up, never imports the `kubernetes`
client. What a live run is told (`LiveOptions`) and how it fails live here too, for the
command's arguments."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from extractors.filebatch import DEFAULT_READ, ReadOptions, SourceFileError, land_file
from extractors.kubernetes.parse import (
    ParseOptions,
    WatchStream,
    parse_document,
    starts_with_event,
)
from extractors.kubernetes.records import RAW_TABLES
from extractors.landing import LandingReport
from extractors.textfile import beginning, land_pieces

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
    Watch events are read piece by piece (WatchStream: memory does not grow with the file);
    a List, one JSON document, is read whole."""
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
    return land_file(
        home,
        path,
        source=SOURCE,
        parse=lambda text: parse_document(text, options, read.extracted_at),
        row_types=RAW_TABLES,
        options=options.fingerprint(),
        read=read,
    )
