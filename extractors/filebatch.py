"""Land one evidence file: read it, parse it with the source's pure parser, land the batch."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from pathlib import Path

from extractors.landing import LandingReport, land
from extractors.records import ParseResult


class SourceFileError(ValueError):
    """The file cannot be read as this source at all (the message names the file)."""


def land_file(
    home: Path,
    path: Path,
    *,
    source: str,
    parse: Callable[[str], ParseResult],
    row_types: Mapping[str, type],
    options: str = "",
    extracted_at: dt.datetime | None = None,
) -> LandingReport:
    """`extracted_at`: when the file was read from its source, if the user says (a file's
    modification time is never evidence of it: a copy changes it)."""
    try:
        content = path.read_bytes()
    except OSError as exc:
        raise SourceFileError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceFileError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    try:
        result = parse(text)
    except ValueError as exc:
        raise SourceFileError(f"{path}: {exc}") from None
    return land(
        home,
        source=source,
        file=str(path),
        content=content,
        options=options,
        result=result,
        row_types=row_types,
        extracted_at=extracted_at,
    )
