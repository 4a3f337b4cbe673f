"""sacct `--parsable2` / `--parsable` text read chunk by chunk (pure): memory stays bounded
by a chunk whatever the size of the output, and the records come out as Arrow rows.

Each chunk is a run of whole lines. Its header lines are found among the lines without a
digit (a header never has one) and split it into sections, as extractors.slurm.text reads
them. In a section, the regular lines (exactly the layout's fields, one record each) are
read column by column (extractors.slurm.columns); every other line (short, long, blank, a
field holding a newline) and every record the columns leave unread is read one record at a
time (extractors.slurm.record) with the lines around it. A record that more lines could
complete at the end of a chunk is carried over to the next one.
"""

from __future__ import annotations

import datetime as dt
import functools
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from extractors.records import Rejected, to_table
from extractors.slurm.columns import SCHEMA, ColumnReader, Read
from extractors.slurm.record import EXTRACTED_AT_BASIS, gpu_source_warning, record_rows
from extractors.slurm.records import SlurmJob
from extractors.slurm.text import (
    XDMOD_FIELDS,
    XDMOD_LEGACY_FIELDS,
    Layout,
    Record,
    field_in,
    is_unfinished,
    records_in,
    sections,
    split_record,
)
from extractors.slurm.values import FieldError


@dataclass
class Chunk:
    """What one chunk of text holds: its rows, the records rejected and the records read."""

    rows: pa.Table  # SlurmJob rows in line order, jobs and steps
    rejected: list[Rejected] = field(default_factory=list)
    records_read: int = 0

    @property
    def jobs(self) -> pa.Table:
        return self.rows.filter(pc.is_null(self.rows["step_id"]))

    @property
    def steps(self) -> pa.Table:
        return self.rows.filter(pc.is_valid(self.rows["step_id"]))


@dataclass
class _Parts:
    """A chunk being read: the column-wise tables, the per-record rows, the rest."""

    tables: list[pa.Table] = field(default_factory=list)
    rows: list[SlurmJob] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    sources: list[tuple[int, str]] = field(default_factory=list)
    records_read: int = 0
    # the column-wise reads of the chunk, in order: each gives its Read and the texts of the
    # lines it left unread (resolved by `_chunk`)
    reads: list[tuple[Callable[[], tuple[Read, list[str]]], np.ndarray, Layout]] = field(
        default_factory=list
    )


class SacctStream:
    """One sacct output read chunk by chunk (`feed`): the records of each chunk, and what the
    whole output says once read (`warnings`, `extracted_at`).

    `locate` (line, column) asks for the sacct field at that place (`located`): where an
    invalid byte sits. Zone-less times are read in `timezone` (an IANA name; ValueError for
    an unknown one), a header without Cluster needs `cluster` (ValueError at its first
    record), a header in another delimiter than `delimiter` is a ValueError."""

    def __init__(
        self,
        *,
        cluster: str | None = None,
        timezone: str = "UTC",
        delimiter: str | None = None,
        locate: tuple[int, int] | None = None,
    ) -> None:
        try:  # an unknown zone is the caller's error: raise before reading anything
            ZoneInfo(timezone)
        except (ZoneInfoNotFoundError, ValueError) as err:
            raise ValueError(f"unknown timezone {timezone!r}") from err
        self.cluster, self.timezone, self.delimiter = cluster, timezone, delimiter
        self.columns = ColumnReader(cluster=cluster, timezone=timezone)
        self.layout: Layout | None = None
        self.first = 1  # the number of the next chunk's first line (the carried ones first)
        self.carry: list[str] = []
        self.records_read = 0
        self.has_text = False
        self.extracted_at: dt.datetime | None = None
        self.locate, self.located = locate, None
        self.sources: dict[str, tuple[int, list[int]]] = {}
        self._submitted = self._given = 0
        self._thread = threading.current_thread()  # its reads use self.columns
        self._readers = threading.local()  # a pool thread's own ColumnReader

    @property
    def warnings(self) -> list[str]:
        return [gpu_source_warning(s, count, lines) for s, (count, lines) in self.sources.items()]

    @property
    def extracted_at_basis(self) -> str | None:
        return EXTRACTED_AT_BASIS if self.extracted_at is not None else None

    def feed(self, text: str, *, final: bool = False) -> Chunk:
        """The records of `text`: whole lines (ending in a newline unless `final`)."""
        return self.submit(text, final=final)()

    def submit(
        self, text: str, *, final: bool = False, pool: Executor | None = None
    ) -> Callable[[], Chunk]:
        """`feed` in two steps: the lines are split into sections and records now, and their
        column-wise reading is handed to `pool` (its threads read in parallel: Arrow's
        kernels release the GIL); the function returned waits for it and gives the chunk.
        Chunks are given in the order submitted: each function is called once, in turn."""
        number = self._submitted
        self._submitted += 1
        parts = self._plan(text, final, pool)

        def chunk() -> Chunk:
            if number != self._given:
                raise RuntimeError(f"chunk {number} given out of turn (next: {self._given})")
            self._given += 1
            return self._chunk(parts)

        return chunk

    def _plan(self, text: str, final: bool, pool: Executor | None) -> _Parts:
        lines = pc.split_pattern(pa.array([text], pa.string()), pattern="\n").flatten()
        lines = pc.utf8_rtrim(lines if final else lines.slice(0, len(lines) - 1), characters="\r")
        carried = bool(self.carry)
        if carried:
            lines = pa.concat_arrays([pa.array(self.carry, pa.string()), lines])
        first, self.carry = self.first, []
        nonblank = _mask(pc.match_substring_regex(lines, f"[^{_SPACE}]"))
        self.has_text = self.has_text or bool(nonblank.any())
        headers = _maybe_headers(lines) if _plain(self.delimiter) else nonblank.copy()
        if "\r" in text or carried:
            headers |= _mask(pc.match_substring(lines, "\r"))  # never split as regular
        at = np.flatnonzero(headers)
        candidates = zip(at.tolist(), lines.take(at).to_pylist(), strict=True)
        parts = _Parts()
        for layout, start, stop in sections(
            candidates, len(lines), first, self.layout, self.delimiter
        ):
            self._section(
                parts, lines, first, layout, (start, stop), (headers, nonblank), final, pool
            )
            self.layout = layout
        self.first = first + len(lines) - len(self.carry)
        if self.locate and self.located is None and self.locate[0] < self.first:
            self.located = ""  # a header or a blank line: no field
        return parts

    def _section(
        self,
        parts: _Parts,
        lines: pa.Array,
        first: int,
        layout: Layout,
        span: tuple[int, int],
        marks: tuple[np.ndarray, np.ndarray],
        final: bool,
        pool: Executor | None,
    ) -> None:
        """Read the lines `span` of the chunk, in `layout`; `marks`: the chunk's lines that
        may be headers (or hold a carriage return), and those that are not blank."""
        start, stop = span
        headers, nonblank = marks
        if start == stop:
            return
        section = lines.slice(start, stop - start)
        if not layout.reads_cluster and not self.cluster and nonblank[start:stop].any():
            raise ValueError(
                f"line {layout.header_line}: the sacct header has no Cluster column: give "
                "--cluster NAME (the cluster these jobs ran on)"
            )
        regular = np.zeros(stop - start, dtype=bool)
        for columns, mask in self._regular(layout, section, ~headers[start:stop]):
            regular |= mask
            at = np.flatnonzero(mask)
            if not len(at):
                continue
            numbers = first + start + at
            self._locate_regular(layout, section, numbers, first + start)
            lines_read = (
                section.slice(at[0], len(at)) if at[-1] - at[0] + 1 == len(at) else section.take(at)
            )
            reading = functools.partial(
                self._read, lines_read, numbers, columns, layout.delimiter, (section, at)
            )
            parts.reads.append((reading if pool is None else pool.submit(reading).result,
                                numbers, layout))  # fmt: skip
            parts.records_read += len(at)
        for run_start, run_stop in _runs(np.flatnonzero(~regular)):
            texts = section.slice(run_start, run_stop - run_start).to_pylist()
            records = list(records_in(texts, first + start + run_start, layout, self.delimiter))
            at_end = not final and start + run_stop == len(lines)
            if at_end and records and is_unfinished(records[-1]):
                self.carry = lines.slice(records.pop().line - first).to_pylist()
            for record in records:
                self._record(parts, record, counted=False)

    def _regular(
        self, layout: Layout, section: pa.Array, plain: np.ndarray
    ) -> Iterator[tuple[tuple[str, ...], np.ndarray]]:
        """The lines of a section the columns read (a mask per field list): of the `plain`
        ones (no header can be one), those with exactly the layout's fields (XDMoD's 26 or its
        earlier 25 without a header; --parsable's trailing delimiter where the header has
        it), not starting with a byte order mark."""
        if not (_plain(layout.delimiter) and "jobid" in layout.columns and layout.width > 2):
            return
        count = pc.count_substring(section, layout.delimiter).to_numpy(zero_copy_only=False)
        plain = plain & ~_mask(pc.starts_with(section, "\ufeff"))
        if layout.header_line is None:
            yield XDMOD_FIELDS, plain & (count == len(XDMOD_FIELDS) - 1)
            yield XDMOD_LEGACY_FIELDS, plain & (count == len(XDMOD_LEGACY_FIELDS) - 1)
            return
        mask = plain & (count == layout.width - 1)
        if layout.trailing:
            mask &= _mask(pc.ends_with(section, pattern=layout.delimiter))
        yield layout.columns, mask

    def _read(
        self,
        lines: pa.Array,
        numbers: np.ndarray,
        columns: tuple[str, ...],
        delimiter: str,
        place: tuple[pa.Array, np.ndarray],
    ) -> tuple[Read, list[str]]:
        """The column-wise reading of regular lines (in a pool's thread, by its own reader),
        and the texts of those it leaves unread (`place`: the section and the lines' indexes
        in it)."""
        reader = self.columns
        if threading.current_thread() is not self._thread:
            reader = getattr(self._readers, "reader", None)
            if reader is None:
                reader = self._readers.reader = ColumnReader(
                    cluster=self.cluster, timezone=self.timezone
                )
        read = reader.read(lines, pa.array(numbers), columns, delimiter)
        section, at = place
        return read, (section.take(at[read.unread]).to_pylist() if read.unread else [])

    def _record(self, parts: _Parts, record: Record, *, counted: bool) -> None:
        """Read one record by itself (`counted`: it is counted as read already)."""
        if not counted:
            parts.records_read += 1
            if self.locate and self.located is None:
                lines = record.text.count("\n") + 1
                if record.line <= self.locate[0] < record.line + lines:
                    self.located = field_in(record, *self.locate) or ""
        try:
            values = split_record(record)
            rows, source = record_rows(
                values, cluster=self.cluster, timezone=self.timezone, line=record.line
            )
        except FieldError as err:
            parts.rejected.append(Rejected(record.line, err.field, err.reason, record.text))
            return
        if source is not None:
            parts.sources.append((record.line, source))
        parts.rows.extend(rows)

    def _locate_regular(
        self, layout: Layout, section: pa.Array, numbers: np.ndarray, first: int
    ) -> None:
        if not self.locate or self.located is not None:
            return
        line, column = self.locate
        if line in set(numbers.tolist()):
            text = section[line - first].as_py()
            self.located = field_in(Record(line, text, layout), line, column) or ""

    def _chunk(self, parts: _Parts) -> Chunk:
        for reading, numbers, layout in parts.reads:
            read, unread = reading()
            parts.tables.append(read.rows)
            parts.sources.extend(read.gpu_sources)
            for number, text in zip(numbers[read.unread].tolist(), unread, strict=True):
                self._record(parts, Record(number, text, layout), counted=True)
        if len(parts.tables) == 1 and not parts.rows:
            rows = parts.tables[0]  # the lines' order
        else:
            rows = pa.concat_tables([*parts.tables, to_table(SlurmJob, parts.rows).cast(SCHEMA)])
            rows = rows.take(pc.sort_indices(rows["source_line"]))
        latest = pc.max(rows["provisional_end_at"]).as_py()
        if latest is not None and (self.extracted_at is None or latest > self.extracted_at):
            self.extracted_at = latest
        for line, source in sorted(parts.sources):
            count, lines = self.sources.get(source, (0, []))
            self.sources[source] = (count + 1, lines if len(lines) >= 10 else [*lines, line])
        self.records_read += parts.records_read
        rejected = sorted(parts.rejected, key=lambda r: r.line)
        return Chunk(rows, rejected, parts.records_read)


# Python's white space (str.strip), as a regular expression class
_SPACE = r"\t-\r\x1c- \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}"


def _mask(array: pa.Array) -> np.ndarray:
    return array.to_numpy(zero_copy_only=False)


def _maybe_headers(lines: pa.Array) -> np.ndarray:
    """The lines that may be sacct headers: a header's first column is a field name (its
    first character, after white space, a letter) and it has no digit."""
    mask = _mask(pc.match_substring_regex(lines, f"^[{_SPACE}]*[A-Za-z]"))
    at = np.flatnonzero(mask)
    if len(at):
        mask[at] = ~_mask(pc.match_substring_regex(lines.take(at), "[0-9]"))
    return mask


def _plain(delimiter: str | None) -> bool:
    """Whether lines split by the delimiter can be told from headers by their digits (none
    in a header) and letters (a header's first)."""
    return delimiter is None or (
        delimiter != "" and not any(c.isalnum() or c.isspace() for c in delimiter)
    )


def _runs(indexes: np.ndarray) -> Iterator[tuple[int, int]]:
    """(start, stop) of each run of consecutive indexes."""
    if not len(indexes):
        return
    breaks = np.flatnonzero(np.diff(indexes) != 1)
    starts = [indexes[0], *indexes[breaks + 1].tolist()]
    stops = [*(indexes[breaks] + 1).tolist(), indexes[-1] + 1]
    yield from zip((int(s) for s in starts), (int(s) for s in stops), strict=True)
