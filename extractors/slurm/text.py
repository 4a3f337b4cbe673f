"""Reading `sacct --parsable2` / `--parsable` text into records (pure): header lines, the
delimiter, and records whose fields hold a newline.

- A header line is sacct's own (`JobID|JobName|...`): every column a field name `sacct
  --helpformat` lists. It is never a record. Its delimiter is detected when the output has a
  header (`--delimiter='|#'` gives `Account|#AdminComment|#...`): the characters after the
  first column name, when every name split by them is a sacct field; a `delimiter` given
  must agree with it. Without a header the delimiter is the given one, else `|`.
- Without a header, Open XDMoD's 26 fields (`XDMOD_FIELDS`) are assumed; a line of exactly
  25 fields is XDMoD's earlier layout (`XDMOD_LEGACY_FIELDS`, ReqGRES where QOS and
  AllocTRES were).
- A field may hold a newline (`SubmitLine`): a record with fewer fields than the header
  continues on the next physical lines until it has them all, as sacct wrote it. A line that
  cannot be completed so (the join would overshoot, or the file ends) is a record of its own,
  rejected as short.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator, Sequence

from extractors.slurm.values import FieldError

# The field list of Open XDMoD's documented `sacct --parsable2 --noheader` command, in order.
XDMOD_FIELDS = (
    "jobid", "jobidraw", "cluster", "partition", "qos", "account", "group", "gid", "user", "uid",
    "submit", "eligible", "start", "end", "elapsed", "exitcode", "state", "nnodes", "ncpus",
    "reqcpus", "reqmem", "reqtres", "alloctres", "timelimit", "nodelist", "jobname",
)  # fmt: skip
# The 25 fields of Open XDMoD's earlier command (its 6.x docs): no QOS, ReqGRES, no AllocTRES.
XDMOD_LEGACY_FIELDS = (
    "jobid", "jobidraw", "cluster", "partition", "account", "group", "gid", "user", "uid",
    "submit", "eligible", "start", "end", "elapsed", "exitcode", "state", "nnodes", "ncpus",
    "reqcpus", "reqmem", "reqgres", "reqtres", "timelimit", "nodelist", "jobname",
)  # fmt: skip

# sacct's own spelling of the columns we read: used as the `field` of a rejection.
DISPLAY = {
    "jobid": "JobID", "jobidraw": "JobIDRaw", "cluster": "Cluster", "partition": "Partition",
    "qos": "QOS", "account": "Account", "group": "Group", "gid": "GID", "user": "User",
    "uid": "UID", "submit": "Submit", "eligible": "Eligible", "start": "Start", "end": "End",
    "elapsed": "Elapsed", "exitcode": "ExitCode", "state": "State", "nnodes": "NNodes",
    "ncpus": "NCPUS", "alloccpus": "AllocCPUS", "reqcpus": "ReqCPUS", "reqmem": "ReqMem",
    "reqtres": "ReqTRES", "alloctres": "AllocTRES", "reqgres": "ReqGRES",
    "allocgres": "AllocGRES", "timelimit": "Timelimit", "nodelist": "NodeList",
    "jobname": "JobName",
}  # fmt: skip

# Every field name `sacct --helpformat` lists (lower case), to recognise sacct's header line.
SACCT_FIELDS = frozenset(DISPLAY) | {
    "admincomment", "allocnodes", "associd", "avecpu", "avecpufreq",
    "avediskread", "avediskwrite", "avepages", "averss", "avevmsize", "blockid", "comment",
    "constraints", "consumedenergy", "consumedenergyraw", "container", "cputime", "cputimeraw",
    "dbindex", "derivedexitcode", "elapsedraw", "extra", "failednode", "flags", "layout",
    "licenses", "maxdiskread", "maxdiskreadnode", "maxdiskreadtask", "maxdiskwrite",
    "maxdiskwritenode", "maxdiskwritetask", "maxpages", "maxpagesnode", "maxpagestask", "maxrss",
    "maxrssnode", "maxrsstask", "maxvmsize", "maxvmsizenode", "maxvmsizetask", "mcslabel",
    "mincpu", "mincpunode", "mincputask", "ntasks", "planned", "plannedcpu", "plannedcpuraw",
    "priority", "qosraw", "qosreq", "reason", "reqcpufreq", "reqcpufreqgov", "reqcpufreqmax",
    "reqcpufreqmin", "reqnodes", "reservation", "reservationid", "reserved", "resvcpu",
    "resvcpuraw", "stdin", "stdout", "stderr", "submitline", "suspended", "systemcomment",
    "systemcpu", "timelimitraw", "totalcpu", "tresusageinave", "tresusageinmax",
    "tresusageinmaxnode", "tresusageinmaxtask", "tresusageinmin", "tresusageinminnode",
    "tresusageinmintask", "tresusageintot", "tresusageoutave", "tresusageoutmax",
    "tresusageoutmaxnode", "tresusageoutmaxtask", "tresusageoutmin", "tresusageoutminnode",
    "tresusageoutmintask", "tresusageouttot", "usercpu", "wckey", "wckeyid", "workdir",
}  # fmt: skip

FIXED_WIDTH_REASON = (
    "fixed-width sacct output is not supported (columns may be truncated with '+'); "
    "run sacct with --parsable2"
)
DEFAULT_DELIMITER = "|"
_FIRST_NAME = re.compile(r"^\s*[A-Za-z]+([^A-Za-z0-9\s]+)")


@dataclasses.dataclass(frozen=True)
class Layout:
    """How the records of a section are split: by a header's columns, or XDMoD's fields."""

    columns: tuple[str, ...]  # lower-case sacct names; "" for a column not read (or repeated)
    delimiter: str
    trailing: bool  # --parsable: every line ends with one extra delimiter
    header_line: int | None  # the header's line; None for XDMoD's headerless layout
    spelled: tuple[str, ...] = ()  # the header's own spelling of each column

    @property
    def reads_cluster(self) -> bool:
        """Whether the records name their cluster (XDMoD's fields do; a header may not)."""
        return self.header_line is None or "cluster" in self.columns

    @property
    def width(self) -> int:
        """Fields per record as split by the delimiter (the trailing one's empty field too)."""
        return len(self.columns) + self.trailing


@dataclasses.dataclass(frozen=True)
class Record:
    """One logical record: its first physical line and its text (lines joined by `\\n`)."""

    line: int
    text: str
    layout: Layout


def header_layout(line: str, number: int, delimiter: str | None) -> Layout | None:
    """A Layout when `line` is sacct's header (every column a sacct field name), split by
    `delimiter`, or by the one it shows when none is given; ValueError when it is a header
    in another delimiter than the one given."""
    found = _FIRST_NAME.match(line)
    detected = found.group(1) if found else DEFAULT_DELIMITER
    other = delimiter is not None and delimiter != detected
    if other and _names(line, detected) is not None and _names(line, delimiter) is None:
        raise ValueError(
            f"line {number}: a sacct header delimited by {detected!r}, "
            f"not --delimiter {delimiter!r}"
        )
    chosen = delimiter or detected
    names = _names(line, chosen)
    if names is None:
        return None
    spelled = tuple(name.strip() for name in line.rstrip("\r").split(chosen))
    trailing = len(names) > 1 and names[-1] == ""
    if trailing:
        names.pop()
    columns, seen = [], set()
    for name in names:
        columns.append(name if name in DISPLAY and name not in seen else "")
        seen.add(name)
    return Layout(tuple(columns), chosen, trailing, number, spelled)


def _names(line: str, delimiter: str) -> list[str] | None:
    names = [name.strip().lower() for name in line.rstrip("\r").split(delimiter)]
    body = names[:-1] if len(names) > 1 and names[-1] == "" else names
    if not body or body[0] not in SACCT_FIELDS or not all(n in SACCT_FIELDS for n in body):
        return None
    return names


def headerless(delimiter: str | None) -> Layout:
    return Layout(XDMOD_FIELDS, delimiter or DEFAULT_DELIMITER, False, None)


def sacct_records(text: str, delimiter: str | None) -> Iterator[Record]:
    """Every record of the text in order (header and blank lines are not records)."""
    lines = [raw.rstrip("\r") for raw in text.split("\n")]
    for layout, start, stop in sections(enumerate(lines), len(lines), 1, None, delimiter):
        yield from records_in(lines[start:stop], start + 1, layout, delimiter)


def sections(
    candidates: Iterable[tuple[int, str]],
    count: int,
    first: int,
    layout: Layout | None,
    delimiter: str | None,
) -> Iterator[tuple[Layout, int, int]]:
    """The runs of `count` lines between sacct headers, as (layout, start, stop) indexes, the
    first line numbered `first` and read in `layout` until a header: `candidates` are
    (index, text) of every line that may be a header, in order. A section is yielded before
    the line after it is looked at, so its records come before a header's error."""
    start = 0
    for index, line in candidates:
        try:
            header = header_layout(line, first + index, delimiter)
        except ValueError:
            yield layout or headerless(delimiter), start, index
            raise
        if header is not None:
            yield layout or headerless(delimiter), start, index
            layout, start = header, index + 1
    yield layout or headerless(delimiter), start, count


def records_in(
    lines: Sequence[str], first: int, layout: Layout, delimiter: str | None
) -> Iterator[Record]:
    """The records of lines that hold no header, the first numbered `first`."""
    index = 0
    while index < len(lines):
        line, number = lines[index], first + index
        index += 1
        if not line.strip():
            continue
        parts = [line]
        if layout.header_line is not None:
            parts = _completed(lines, index - 1, layout, delimiter)
            index += len(parts) - 1
        yield Record(number, "\n".join(parts), layout)


def is_unfinished(record: Record) -> bool:
    """Whether more lines could complete the record: it is short of its header's fields."""
    layout = record.layout
    return layout.header_line is not None and 1 < record.text.count(layout.delimiter) + 1 < (
        layout.width
    )


def _completed(lines: list[str], start: int, layout: Layout, delimiter: str | None) -> list[str]:
    """The physical lines of the record starting at `start`: more than one when its field
    count is short of the header's and the next lines complete it exactly. A line without
    the delimiter (fixed-width output) starts no record, and a line that is complete by
    itself (or a header) continues none."""
    parts = [lines[start]]
    count = lines[start].count(layout.delimiter) + 1
    following = start + 1
    while 1 < count < layout.width and following < len(lines):
        nxt = lines[following]
        own = nxt.count(layout.delimiter) + 1
        if own >= layout.width or header_layout(nxt, following + 1, delimiter) is not None:
            break
        parts.append(nxt)
        count += nxt.count(layout.delimiter)
        following += 1
    return parts if count == layout.width else parts[:1]


def split_record(record: Record) -> dict[str, str]:
    """The values of a record by column name; FieldError when its fields do not fit."""
    layout = record.layout
    text, delimiter = record.text, layout.delimiter
    if layout.header_line is None and text.count(delimiter) == len(XDMOD_LEGACY_FIELDS) - 1:
        layout = dataclasses.replace(layout, columns=XDMOD_LEGACY_FIELDS)
    expected = len(layout.columns)
    if expected > 1 and delimiter not in text:
        raise FieldError("line", _other_delimiter(text, delimiter, layout) or FIXED_WIDTH_REASON)
    if layout.trailing and text.endswith(delimiter):
        text = text[: -len(delimiter)]
    elif (
        layout.header_line is None
        and text.endswith(delimiter)
        and text.count(delimiter) >= expected
    ):
        text = text[: -len(delimiter)]  # --parsable without a header
    # JobName last (as in XDMoD's list) may itself contain the delimiter.
    maxsplit = expected - 1 if layout.columns[-1] == "jobname" else -1
    fields = text.split(delimiter, maxsplit)
    if len(fields) != expected:
        raise FieldError("line", f"expected {expected} fields, got {len(fields)}")
    values = {
        name: value.strip() for name, value in zip(layout.columns, fields, strict=True) if name
    }
    if "jobid" not in values:
        raise FieldError("JobID", "no JobID column in the sacct header")
    return values


def _other_delimiter(text: str, delimiter: str, layout: Layout) -> str | None:
    """Why a line without the delimiter is not fixed-width output: another character splits
    it into the layout's fields (`sacct --delimiter=';' --noheader`)."""
    widths = {layout.width} if layout.header_line else {len(XDMOD_FIELDS), len(XDMOD_LEGACY_FIELDS)}
    for char in sorted({c for c in text if not (c.isalnum() or c.isspace())}):
        if text.count(char) + 1 in widths:
            return (
                f"no {delimiter!r} in the line, but {char!r} splits it into "
                f"{text.count(char) + 1} fields: give --delimiter {char!r}"
            )
    return None


def field_at(text: str, line: int, column: int, delimiter: str | None) -> str | None:
    """The sacct column at (line, column) of the text: where an invalid byte sits."""
    for record in sacct_records(text, delimiter):
        if record.line <= line < record.line + record.text.count("\n") + 1:
            return field_in(record, line, column)
    return None


def field_in(record: Record, line: int, column: int) -> str | None:
    """The sacct column at (line, column) of the text of a record that holds that line."""
    parts = record.text.split("\n")
    before = sum(len(part) + 1 for part in parts[: line - record.line]) + column
    index = record.text[:before].count(record.layout.delimiter)
    layout = record.layout
    if index >= len(layout.columns):
        return None
    name = layout.columns[index] or (layout.spelled[index] if index < len(layout.spelled) else None)
    return DISPLAY.get(name, name) if name else None
